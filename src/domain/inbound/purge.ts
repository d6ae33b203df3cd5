// The digests of reports already taken in only matter while a sender may still retry a report whose 250
// it never saw: MTAs give up within 5 days (Postfix maximal_queue_lifetime, RFC 5321 4.5.4.1 suggests
// 4-5 days). They are kept for 7 days and then deleted (indexed by received_at).
import type { AppContext } from '../app-context.js';

export const REPORT_DIGEST_TTL_MS = 7 * 24 * 3_600_000;
export const PURGE_EVERY_MS = 60 * 60_000;

export async function purgeReportDigests(ctx: AppContext, now: number): Promise<number> {
  const r = await ctx.db
    .deleteFrom('inbound_reports')
    .where('received_at', '<', now - REPORT_DIGEST_TTL_MS)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
