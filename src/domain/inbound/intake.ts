// Takes one received report (DSN, ARF, plain bounce, auto-reply) in for the envelope recipients it was
// accepted for, and records its effects through recordBounce: the bounce record with the raw message as its
// dump, the message event and webhook notification, the suppression for inactive types. Everything for
// one message happens in ONE transaction, and the listener answers 250 only after it commits: a crash in
// between makes the sender retry (RFC 5321 4.5.4.1), and the digest row makes that retry a no-op.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordBounce } from '../bounces/record-bounce.js';
import { messageIdFromHeader, type ParsedReport, type RecipientResult } from '../bounces/parse-report.js';
import { readReport } from './read-on-thread.js';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { decodeVerp } from '../../infra/mime/verp.js';
import type { Secrets } from '../../infra/crypto/secrets.js';
import type { InboundTarget } from './recipients.js';

export interface IntakeOutcome {
  address: string;
  outcome: 'recorded' | 'duplicate' | 'ignored';
  /** Why nothing was recorded (ignored), for the log. */
  reason?: string;
  bounceId?: number;
  type?: string;
  messageId?: string;
}

interface Resolved {
  messageId: string;
  recipientId: number;
  email: string;
  result: RecipientResult;
}

const lower = (e: string | null) => (e ? (normalizeEmail(e) ?? e.toLowerCase()) : null);

/** The report's line about this recipient; with VERP the address is authoritative even when the report
 * names a rewritten one (aliases, forwarding), so a lone result is taken as is. */
function pick(results: RecipientResult[], email: string): RecipientResult | null {
  const want = lower(email);
  return results.find((r) => lower(r.email) === want) ?? results[0] ?? null;
}

async function resolve(trx: Kysely<Database>, secrets: Secrets, t: InboundTarget, report: ParsedReport): Promise<Resolved | string> {
  if (report.results.length === 0) return `no failure or complaint in the ${report.kind} report`;
  if (t.verp) {
    const row = await trx
      .selectFrom('message_recipients')
      .select(['id', 'email', 'message_id'])
      .where('id', '=', t.verp.recipientId)
      .where('message_id', '=', t.verp.messageId)
      .executeTakeFirst();
    if (!row) return 'the message is no longer stored';
    const result = pick(report.results, row.email);
    return result ? { messageId: row.message_id, recipientId: row.id, email: row.email, result } : 'no result';
  }
  // Feedback-loop address: only complaints, tied back by the original's Message-ID, or by its Return-Path
  // (our signed VERP address) when the message went out with the application's own Message-ID (X-PM-KeepID).
  if (report.kind !== 'arf') return 'only feedback reports are taken at the feedback-loop address';
  const verp = report.original.returnPath ? decodeVerp(secrets, report.original.returnPath) : null;
  const messageId = messageIdFromHeader(report.original.messageId) ?? verp?.messageId ?? null;
  if (!messageId) return 'the report names no message of ours';
  let rows = await trx.selectFrom('message_recipients').select(['id', 'email', 'message_id']).where('message_id', '=', messageId).execute();
  if (rows.length === 0 && verp && verp.messageId !== messageId) {
    rows = await trx.selectFrom('message_recipients').select(['id', 'email', 'message_id']).where('message_id', '=', verp.messageId).execute();
  }
  const named = new Set(report.results.map((r) => lower(r.email)).concat(report.original.to.map(lower)));
  const row = rows.find((r) => named.has(lower(r.email))) ?? (rows.length === 1 ? rows[0] : undefined);
  if (!row) return rows.length ? 'the recipient cannot be told from the report' : 'the message is no longer stored';
  return { messageId: row.message_id, recipientId: row.id, email: row.email, result: pick(report.results, row.email)! };
}

export async function takeInReport(ctx: AppContext, raw: Buffer, targets: InboundTarget[]): Promise<IntakeOutcome[]> {
  const report = await readReport(ctx, raw);
  // Stored as text on both databases; PostgreSQL text cannot hold NUL.
  const dump = raw.toString('utf8').replace(/\u0000/g, '');
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const out: IntakeOutcome[] = [];
    for (const t of targets) {
      const digest = createHash('sha256').update(t.address).update('\n').update(raw).digest('hex');
      const seen = await trx.selectFrom('inbound_reports').select('digest').where('digest', '=', digest).executeTakeFirst();
      if (seen) {
        out.push({ address: t.address, outcome: 'duplicate' });
        continue;
      }
      await trx.insertInto('inbound_reports').values({ digest, received_at: now }).execute();
      const r = await resolve(trx, ctx.secrets, t, report);
      if (typeof r === 'string') {
        out.push({ address: t.address, outcome: 'ignored', reason: r });
        continue;
      }
      const rec = await recordBounce(trx, ctx, {
        messageId: r.messageId,
        email: r.email,
        type: r.result.type,
        details: r.result.details,
        bouncedAt: now,
        dump,
        recipientId: r.recipientId,
      });
      if (rec) out.push({ address: t.address, outcome: 'recorded', bounceId: rec.bounceId, type: r.result.type, messageId: r.messageId });
      else out.push({ address: t.address, outcome: 'ignored', reason: 'the message is no longer stored' });
    }
    return out;
  });
}
