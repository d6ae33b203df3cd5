import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Puts a claimed job back to run at `runAt` as if it had not been claimed: the attempt its claim counted is
 * taken back (a job deferred before doing any work, e.g. by destination pacing, keeps its place on the
 * retry schedule, which backoff.ts computes from the stored attempt count).
 */
export async function deferJob(trx: Kysely<Database>, jobId: number, runAt: number): Promise<void> {
  await trx
    .updateTable('jobs')
    .set({ run_at: runAt, locked_by: null, locked_until: null, attempts: sql<number>`case when attempts > 0 then attempts - 1 else 0 end` })
    .where('id', '=', jobId)
    .execute();
}
