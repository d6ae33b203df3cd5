// TotalCount of the search endpoints. Only the first 10,000 matches of a search can be paged to
// (docs/reference/api-conventions.md, "Limits": count + offset <= 10000; "use fromdate/todate for more"), so
// counting stops there: an exact count of a million matching rows would cost a full index scan on every page
// request (hundreds of milliseconds), while counting up to the reachable window stays within the same index
// range the page itself reads. TotalCount is therefore exact up to 10,000 and 10,000 beyond.
import type { SelectQueryBuilder } from 'kysely';
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';

export const SEARCH_WINDOW = 10_000;

/**
 * `distinct`: the query selects distinct rows, which are what is counted (its selection is kept).
 * `inIndexOrder`: keep the query's ORDER BY, written to match the index the filter uses. A bare LIMIT lets a
 * planner whose statistics say every row matches (stale ones) pick a table scan expected to stop early,
 * which reads the whole table when the rows are in fact another server's; in index order only the index can
 * stop at the limit, so it is chosen whatever the statistics say.
 */
export async function countCapped<DB, TB extends keyof DB, O>(
  ctx: AppContext,
  qb: SelectQueryBuilder<DB, TB, O>,
  distinct = false,
  inIndexOrder = false,
): Promise<number> {
  const selected = distinct ? qb : qb.clearSelect().select(sql<number>`1`.as('one'));
  const inner = (inIndexOrder ? selected : selected.clearOrderBy()).limit(SEARCH_WINDOW);
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${inner}) as capped`.execute(ctx.db);
  return Number(rows[0]?.n ?? 0);
}
