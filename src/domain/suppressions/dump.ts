// GET /message-streams/{id}/suppressions/dump: a stream's suppressions, newest first, with the published
// filters. Dates are inclusive and read in Moscow time (docs/reference/api-conventions.md, "General rules" 5).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import { iso, parseFilterDate } from '../../infra/time.js';
import { suppressionAddress } from './address.js';
import { canonical, SUPPRESSION_ORIGINS, SUPPRESSION_REASONS } from './reasons.js';

export interface DumpFilter {
  suppressionReason?: string;
  origin?: string;
  fromDate?: string;
  toDate?: string;
  emailAddress?: string;
}

export interface SuppressionRecord {
  EmailAddress: string;
  SuppressionReason: string;
  Origin: string;
  CreatedAt: string | null;
}

export async function dumpSuppressions(db: Kysely<Database>, serverId: number, streamId: string, f: DumpFilter): Promise<SuppressionRecord[]> {
  let q = db.selectFrom('suppressions').select(['email', 'reason', 'origin', 'created_at']).where('server_id', '=', serverId).where('stream_id', '=', streamId);
  if (f.suppressionReason) {
    const reason = canonical(SUPPRESSION_REASONS, f.suppressionReason);
    if (!reason) throw new ApiError(ErrorCode.InvalidRequestFields, `SuppressionReason must be one of ${SUPPRESSION_REASONS.join(', ')}.`);
    q = q.where('reason', '=', reason);
  }
  if (f.origin) {
    const origin = canonical(SUPPRESSION_ORIGINS, f.origin);
    if (!origin) throw new ApiError(ErrorCode.InvalidRequestFields, `Origin must be one of ${SUPPRESSION_ORIGINS.join(', ')}.`);
    q = q.where('origin', '=', origin);
  }
  if (f.fromDate) {
    const from = parseFilterDate(f.fromDate);
    if (from === null) throw new ApiError(ErrorCode.InvalidRequestFields, "fromdate is not a date (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss).");
    q = q.where('created_at', '>=', from);
  }
  if (f.toDate) {
    const to = parseFilterDate(f.toDate, true);
    if (to === null) throw new ApiError(ErrorCode.InvalidRequestFields, "todate is not a date (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss).");
    q = q.where('created_at', '<=', to);
  }
  if (f.emailAddress) {
    // An address that cannot be suppressed matches nothing.
    const email = suppressionAddress(f.emailAddress);
    if (email === null) return [];
    q = q.where('email', '=', email);
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map((r) => ({ EmailAddress: r.email, SuppressionReason: r.reason, Origin: r.origin, CreatedAt: iso(r.created_at) }));
}
