// GET /stats/inbound (beyond the hosted service, whose statistics cover outbound mail only): inbound
// messages of one server by status, within optional fromdate/todate (dates as the other statistics read
// them, src/infra/time.ts).
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { DAY_MS, MOSCOW_OFFSET_MS, parseFilterDate } from '../../infra/time.js';
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

export interface InboundDay {
  Date: string;
  Received: number;
  Processed: number;
  Blocked: number;
  Failed: number;
  /** Queued or waiting for a retry. */
  Pending: number;
}

/**
 * Inbound messages per Moscow day (the days of every statistic) between two dates inclusive (YYYY-MM-DD),
 * by status, for the console's Statistics page. One grouped query over the index (server_id, received_at);
 * the day is integer division of the shifted timestamp, the same in SQLite and PostgreSQL (bigint / bigint).
 */
export async function inboundDays(ctx: AppContext, serverId: number, fromdate: string, todate: string): Promise<InboundDay[]> {
  const from = parseFilterDate(fromdate, false);
  const to = parseFilterDate(todate, true);
  if (from === null || to === null) throw new ApiError(ErrorCode.StatsQueryError, `'${from === null ? fromdate : todate}' is not a date.`);
  // Literals, not parameters: PostgreSQL matches the GROUP BY expression to the selected one only if identical.
  const day = sql<number>`(received_at + ${sql.lit(MOSCOW_OFFSET_MS)}) / ${sql.lit(DAY_MS)}`;
  const rows = await ctx.db
    .selectFrom('inbound_messages')
    .select([day.as('day'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('server_id', '=', serverId)
    .where('received_at', '>=', from)
    .where('received_at', '<=', to)
    .groupBy([day, 'status'])
    .execute();
  const byDay = new Map<string, InboundDay>();
  for (const r of rows) {
    const date = new Date(Math.floor(Number(r.day)) * DAY_MS).toISOString().slice(0, 10);
    const d = byDay.get(date) ?? { Date: date, Received: 0, Processed: 0, Blocked: 0, Failed: 0, Pending: 0 };
    const n = Number(r.n);
    d.Received += n;
    if (r.status === INBOUND_STATUS.processed) d.Processed += n;
    else if (r.status === INBOUND_STATUS.blocked) d.Blocked += n;
    else if (r.status === INBOUND_STATUS.failed) d.Failed += n;
    else d.Pending += n;
    byDay.set(date, d);
  }
  return [...byDay.values()].sort((a, b) => a.Date.localeCompare(b.Date));
}
