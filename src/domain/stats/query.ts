// Reads the daily counters: sums per Moscow day and metric over the filters of the statistics API
// (docs/reference/statistics.md, "Query": tag, fromdate, todate inclusive, messagestream; all time without
// dates).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import { moscowDay, parseFilterDate } from '../../infra/time.js';
import { statsTag } from './metrics.js';

export interface StatsFilter {
  tag?: string;
  fromdate?: string;
  todate?: string;
  messagestream?: string;
}

export interface MetricSelection {
  names?: string[];
  prefix?: string;
}

/** The filter's date bounds as Moscow days (YYYY-MM-DD), inclusive. */
export function dayBounds(f: StatsFilter): { from?: string; to?: string } {
  const out: { from?: string; to?: string } = {};
  for (const [key, end] of [
    ['fromdate', false],
    ['todate', true],
  ] as const) {
    const text = f[key];
    if (text === undefined || text === '') continue;
    const ms = parseFilterDate(text, end);
    if (ms === null) throw new ApiError(ErrorCode.InvalidRequestFields, `${key} must be a date (YYYY-MM-DD).`);
    out[key === 'fromdate' ? 'from' : 'to'] = moscowDay(ms);
  }
  return out;
}

/** Sums of the selected metrics per day (rows ordered by day). */
export async function readCounters(db: Kysely<Database>, serverId: number, f: StatsFilter, sel: MetricSelection) {
  const { from, to } = dayBounds(f);
  let q = db
    .selectFrom('stats_daily')
    .select(['day', 'metric', sql<number>`sum(value)`.as('n')])
    .where('server_id', '=', serverId);
  if (from) q = q.where('day', '>=', from);
  if (to) q = q.where('day', '<=', to);
  if (f.messagestream) q = q.where('stream_id', '=', f.messagestream);
  if (f.tag !== undefined && f.tag !== '') q = q.where('tag', '=', statsTag(f.tag));
  q = q.where((eb) => {
    const ors = [];
    if (sel.names?.length) ors.push(eb('metric', 'in', sel.names));
    // Prefixes end in ':'; the range scan [prefix, prefix + ';') is 'starts with' without LIKE escaping.
    if (sel.prefix) ors.push(eb.and([eb('metric', '>=', sel.prefix), eb('metric', '<', sel.prefix.slice(0, -1) + ';')]));
    return eb.or(ors);
  });
  const rows = await q.groupBy(['day', 'metric']).orderBy('day').execute();
  return rows.map((r) => ({ day: r.day, metric: r.metric, n: Number(r.n) }));
}
