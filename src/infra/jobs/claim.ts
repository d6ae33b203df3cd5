import { sql } from 'kysely';
import type { Db } from '../db/database.js';
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
 * PostgreSQL: FOR UPDATE SKIP LOCKED lets many workers claim side by side without blocking each other.
 * SQLite: the single writer makes the UPDATE ... RETURNING atomic by itself.
 */
export async function claimJobs(database: Db, o: ClaimOptions): Promise<Job[]> {
  if (o.limit <= 0 || o.queues.length === 0) return [];
  const { db, dialect } = database;
  const exclude = o.excludeGroups ?? [];
  const due = sql`queue in (${sql.join(o.queues)}) and run_at <= ${o.now} and (locked_until is null or locked_until < ${o.now})${
    exclude.length > 0 ? sql` and (group_key is null or group_key not in (${sql.join(exclude)}))` : sql``
  }`;
  const lock = dialect === 'postgres' ? sql` for update skip locked` : sql``;
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
  if (dialect === 'postgres') return (await claim.execute(db)).rows;
  // SQLite runs COMMIT, and with synchronous=FULL its fsync, on the event loop. A claim needs no fsync: lost
  // to a power failure, it leaves the job unclaimed, to be claimed again (at-least-once, as when a worker
  // dies), and the next FULL commit syncs the write-ahead log with this claim in it, in order. The
  // connection is held throughout so no other transaction commits with NORMAL meanwhile, and the setting
  // found is put back (a database opened below FULL stays so).
  return db.connection().execute(async (conn) => {
    const level = Number(Object.values((await sql<Record<string, number>>`pragma synchronous`.execute(conn)).rows[0] ?? {})[0] ?? 2);
    if (level <= 1) return (await claim.execute(conn)).rows;
    await sql`pragma synchronous = NORMAL`.execute(conn);
    try {
      return (await claim.execute(conn)).rows;
    } finally {
      await sql.raw(`pragma synchronous = ${level}`).execute(conn);
    }
  });
}
