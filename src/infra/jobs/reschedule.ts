import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Releases a job to run again at `runAt`, keeping its attempt count (backoff is computed from it). */
export async function rescheduleJob(
  trx: Kysely<Database>,
  jobId: number,
  runAt: number,
  error: string | null,
  payload?: unknown,
): Promise<void> {
  await trx
    .updateTable('jobs')
    .set({
      run_at: runAt,
      locked_by: null,
      locked_until: null,
      last_error: error === null ? null : error.slice(0, 2000),
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    })
    .where('id', '=', jobId)
    .execute();
}
