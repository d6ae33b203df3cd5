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
  let inner = db
    .selectFrom('jobs')
    .select('id')
    .where('queue', 'in', o.queues)
    .where('run_at', '<=', o.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', o.now)]))
    .orderBy('run_at')
    .limit(o.limit);
  if (exclude.length > 0) {
    inner = inner.where((eb) => eb.or([eb('group_key', 'is', null), eb('group_key', 'not in', exclude)]));
  }
  const sub = dialect === 'postgres' ? inner.modifyEnd(sql`for update skip locked`) : inner;
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({
      locked_by: o.workerId,
      locked_until: o.now + o.leaseMs,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', sub)
    .returningAll()
    .execute();
  return rows as Job[];
}
