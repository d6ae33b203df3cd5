// A stream's suppressions for export, newest first, read in keyset pages of PAGE rows: however many there
// are, a request holds one page in memory at a time and each read is one indexed range (dump.ts reads them
// all at once, which the API's dump does by contract).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import { iso } from '../../infra/time.js';
import { canonical, SUPPRESSION_REASONS } from './reasons.js';
import type { SuppressionRecord } from './dump.js';

const PAGE = 1000;

/** The reason filter as the API reads it (any case), or a refusal in its words. */
export function reasonFilter(given: string | undefined): string | undefined {
  if (!given) return undefined;
  const reason = canonical(SUPPRESSION_REASONS, given);
  if (!reason) throw new ApiError(ErrorCode.InvalidRequestFields, `SuppressionReason must be one of ${SUPPRESSION_REASONS.join(', ')}.`);
  return reason;
}

export async function* exportSuppressions(db: Kysely<Database>, serverId: number, streamId: string, reasonGiven?: string): AsyncGenerator<SuppressionRecord[]> {
  const reason = reasonFilter(reasonGiven);
  let after: { at: number; id: number } | null = null;
  for (;;) {
    let q = db.selectFrom('suppressions').select(['id', 'email', 'reason', 'origin', 'created_at']).where('server_id', '=', serverId).where('stream_id', '=', streamId);
    if (reason) q = q.where('reason', '=', reason);
    if (after) {
      const { at, id } = after;
      q = q.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]));
    }
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(PAGE).execute();
    if (rows.length > 0) yield rows.map((r) => ({ EmailAddress: r.email, SuppressionReason: r.reason, Origin: r.origin, CreatedAt: iso(r.created_at) }));
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.created_at, id: last.id };
  }
}

/** How many suppressions a stream has (with the reason filter). */
export async function countSuppressions(db: Kysely<Database>, serverId: number, streamId: string, reasonGiven?: string): Promise<number> {
  const reason = reasonFilter(reasonGiven);
  let q = db.selectFrom('suppressions').select((eb) => eb.fn.countAll<number>().as('n')).where('server_id', '=', serverId).where('stream_id', '=', streamId);
  if (reason) q = q.where('reason', '=', reason);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
