// GET /stats/inbound (beyond the hosted service, whose statistics cover outbound mail only): inbound
// messages of one server by status, within optional fromdate/todate (dates as the other statistics read
// them, src/infra/time.ts).
import type { AppContext } from '../app-context.js';
import { parseFilterDate } from '../../infra/time.js';
import { ApiError, ErrorCode } from '../errors.js';
import { INBOUND_STATUS } from './hook-queue.js';

export async function inboundStats(ctx: AppContext, serverId: number, f: { fromdate?: string; todate?: string }) {
  const bound = (text: string | undefined, end: boolean) => {
    if (!text) return null;
    const at = parseFilterDate(text, end);
    if (at === null) throw new ApiError(ErrorCode.StatsQueryError, `'${text}' is not a date.`);
    return at;
  };
  const from = bound(f.fromdate, false);
  const to = bound(f.todate, true);
  let q = ctx.db.selectFrom('inbound_messages').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).where('server_id', '=', serverId);
  if (from !== null) q = q.where('received_at', '>=', from);
  if (to !== null) q = q.where('received_at', '<=', to);
  const rows = await q.groupBy('status').execute();
  const out: Record<string, number> = { Total: 0 };
  for (const s of Object.values(INBOUND_STATUS)) out[s] = 0;
  for (const r of rows) {
    out[r.status] = Number(r.n);
    out.Total += Number(r.n);
  }
  return out;
}
