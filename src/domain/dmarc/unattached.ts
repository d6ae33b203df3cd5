// The reports kept apart (store.ts: no domain of an account may take them), for the operator: `mailroom
// dmarc` lists the newest, with the policy domain each is about and why nothing took it (an unknown name, a
// name several accounts hold, an unverified domain, or a domain's address used for another domain).
import type { AppContext } from '../app-context.js';

export interface UnattachedReport {
  id: number;
  receivedAt: number;
  policyDomain: string;
  orgName: string;
  email: string;
  reportId: string;
  messages: number;
  status: string;
  reason: string;
  recipient: string;
}

export async function listUnattached(ctx: AppContext, limit = 50): Promise<{ total: number; reports: UnattachedReport[] }> {
  const base = ctx.db.selectFrom('dmarc_reports').where('domain_id', 'is', null);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['id', 'received_at', 'policy_domain', 'org_name', 'email', 'report_id', 'message_count', 'status', 'reason', 'recipient'])
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
  ]);
  return {
    total: Number(count.n),
    reports: rows.map((r) => ({
      id: Number(r.id), receivedAt: Number(r.received_at), policyDomain: r.policy_domain, orgName: r.org_name, email: r.email,
      reportId: r.report_id, messages: Number(r.message_count), status: r.status, reason: r.reason, recipient: r.recipient,
    })),
  };
}
