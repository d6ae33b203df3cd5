import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface QueueStats {
  queue: string;
  /** Jobs waiting or running. */
  depth: number;
  /** Jobs due now and not leased: the backlog a worker has not reached. */
  due: number;
  /** Jobs leased by a worker right now. */
  leased: number;
  /** Age of the oldest job in the queue, milliseconds (0 when empty). */
  oldestAgeMs: number;
}

/** Depth and oldest job per queue: one aggregate over the jobs table (for /metrics and `mailroom status`). */
export async function queueStats(database: Db, now: number): Promise<QueueStats[]> {
  const rows = await sql<{ queue: string; depth: number; due: number; leased: number; oldest: number | null }>`
    select queue, count(*) as depth,
      sum(case when run_at <= ${now} and (locked_until is null or locked_until < ${now}) then 1 else 0 end) as due,
      sum(case when locked_until >= ${now} then 1 else 0 end) as leased,
      min(created_at) as oldest
    from jobs group by queue order by queue`.execute(database.db);
  return rows.rows.map((r) => ({
    queue: r.queue,
    depth: Number(r.depth),
    due: Number(r.due ?? 0),
    leased: Number(r.leased ?? 0),
    oldestAgeMs: r.oldest === null ? 0 : Math.max(0, now - Number(r.oldest)),
  }));
}
