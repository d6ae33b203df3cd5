// POST .../suppressions and .../suppressions/delete (docs/reference/suppressions.md, "States"). Each item is
// answered on its own (Suppressed / Deleted / Failed with a Message); the good items of one call are written
// in one transaction, so the HTTP 200 means all of them are stored.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { suppressionAddress } from './address.js';

export interface ChangeResult {
  EmailAddress: string;
  Status: 'Suppressed' | 'Deleted' | 'Failed';
  Message: string | null;
}

const INVALID = 'Invalid email address.';
const NO_AUTHORITY = 'You do not have the required authority to change this suppression.';

function given(item: unknown): { text: string; email: string | null } {
  const raw = item !== null && typeof item === 'object' ? (item as Record<string, unknown>).EmailAddress : undefined;
  return { text: typeof raw === 'string' ? raw : '', email: suppressionAddress(raw) };
}

/** Suppresses the addresses with reason ManualSuppression, origin Customer. An address that is already
 * suppressed (for any reason) stays as it is and is answered Suppressed. */
export async function suppressAddresses(ctx: AppContext, serverId: number, streamId: string, items: unknown[]): Promise<ChangeResult[]> {
  const parsed = items.map(given);
  const emails = [...new Set(parsed.map((p) => p.email).filter((e): e is string => e !== null))];
  if (emails.length > 0) {
    const now = ctx.clock.now();
    await ctx.db
      .insertInto('suppressions')
      .values(emails.map((email) => ({ server_id: serverId, stream_id: streamId, email, reason: 'ManualSuppression', origin: 'Customer', created_at: now })))
      .onConflict((oc) => oc.columns(['server_id', 'stream_id', 'email']).doNothing())
      .execute();
  }
  return parsed.map((p) =>
    p.email === null ? { EmailAddress: p.text, Status: 'Failed', Message: INVALID } : { EmailAddress: p.text, Status: 'Suppressed', Message: null },
  );
}

/**
 * Lifts suppressions. SpamComplaint suppressions stay (the recipient asked not to get mail; only they can
 * undo it). Lifting a HardBounce suppression reactivates the address: its bounce records stop counting it
 * as inactive. Lifting an address that is not suppressed succeeds, so that a retried call gets the same answer.
 */
export async function unsuppressAddresses(ctx: AppContext, serverId: number, streamId: string, items: unknown[]): Promise<ChangeResult[]> {
  const parsed = items.map(given);
  const emails = [...new Set(parsed.map((p) => p.email).filter((e): e is string => e !== null))];
  const reasons = new Map<string, string>();
  if (emails.length > 0) {
    await ctx.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('suppressions')
        .select(['email', 'reason'])
        .where('server_id', '=', serverId)
        .where('stream_id', '=', streamId)
        .where('email', 'in', emails)
        .execute();
      for (const r of rows) reasons.set(r.email, r.reason);
      const lift = rows.filter((r) => r.reason !== 'SpamComplaint').map((r) => r.email);
      if (lift.length === 0) return;
      await trx
        .deleteFrom('suppressions')
        .where('server_id', '=', serverId)
        .where('stream_id', '=', streamId)
        .where('email', 'in', lift)
        .where('reason', '!=', 'SpamComplaint')
        .execute();
      const bounced = rows.filter((r) => r.reason === 'HardBounce').map((r) => r.email);
      if (bounced.length > 0) {
        await trx
          .updateTable('bounces')
          .set({ inactive: 0, can_activate: 0 })
          .where('server_id', '=', serverId)
          .where('stream_id', '=', streamId)
          // Bounce records may keep the local part's case; suppressions are lowercase.
          .where(sql<string>`lower(email)`, 'in', bounced)
          .where('inactive', '=', 1)
          .where('type', '!=', 'SpamComplaint')
          .execute();
      }
    });
  }
  return parsed.map((p) => {
    if (p.email === null) return { EmailAddress: p.text, Status: 'Failed', Message: INVALID };
    if (reasons.get(p.email) === 'SpamComplaint') return { EmailAddress: p.text, Status: 'Failed', Message: NO_AUTHORITY };
    return { EmailAddress: p.text, Status: 'Deleted', Message: null };
  });
}
