import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { skipLockedClause } from '../db/row-locks.js';
import { executeUnsynced } from '../db/unsynced.js';
import type { Job } from './types.js';

export interface ClaimOptions {
  queues: string[];
  workerId: string;
  limit: number;
  leaseMs: number;
  now: number;
  /** Groups already at their concurrency cap in this process. */
  excludeGroups?: string[];
  /**
   * Per-group cap: at most `cap` minus the group's jobs in flight (`inflight`) are claimed for any group, so
   * that one claim can take many groups' jobs without passing any group's cap.
   */
  groupCap?: { cap: number; inflight: Map<string, number> };
}

/**
 * Claims up to `limit` due jobs by taking a lease on them. A job is due when run_at has passed and it has no
 * live lease; an expired lease means its worker died, so the job is claimed again (at-least-once).
 * Several workers claim side by side without blocking each other (skipLockedClause, db/row-locks.ts).
 */
export async function claimJobs(database: Db, o: ClaimOptions): Promise<Job[]> {
  if (o.limit <= 0 || o.queues.length === 0) return [];
  const exclude = o.excludeGroups ?? [];
  const due = sql`queue in (${sql.join(o.queues)}) and run_at <= ${o.now} and (locked_until is null or locked_until < ${o.now})${
    exclude.length > 0 ? sql` and (group_key is null or group_key not in (${sql.join(exclude)}))` : sql``
  }`;
  const lock = skipLockedClause(database.dialect);
  let ids;
  if (!o.groupCap) {
    ids = sql`select id from jobs where ${due} order by run_at limit ${o.limit}${lock}`;
  } else {
    // The oldest due jobs (a window a few times the limit), numbered within their group; a group keeps as many
    // as it has room for. Window functions cannot share a query level with FOR UPDATE, hence the nesting.
    const { cap, inflight } = o.groupCap;
    const busy = [...inflight].filter(([, n]) => n > 0);
    const room = busy.length > 0 ? sql`case group_key ${sql.join(busy.map(([g, n]) => sql`when ${g} then ${sql.lit(cap - n)}`), sql` `)} else ${sql.lit(cap)} end` : sql.lit(cap);
    // Whole numbers written as literals: PostgreSQL could not type a CASE made of parameters alone.
    const window = sql.lit(Math.min(o.limit * 4, 1000));
    ids = sql`select id from (
        select id, run_at, group_key, row_number() over (partition by group_key order by run_at, id) as rn
        from (select id, run_at, group_key from jobs where ${due} order by run_at limit ${window}${lock}) candidates
      ) numbered
      where group_key is null or rn <= ${room}
      order by run_at limit ${o.limit}`;
  }
  const claim = sql<Job>`update jobs set locked_by = ${o.workerId}, locked_until = ${o.now + o.leaseMs}, attempts = attempts + 1
    where id in (${ids}) returning *`;
  // A claim lost to a power failure leaves the job unclaimed, to be claimed again: it needs no fsync.
  return executeUnsynced(database, claim);
}
