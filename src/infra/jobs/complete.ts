import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Finishes a job inside the transaction that records its outcome. */
export async function completeJob(trx: Kysely<Database>, jobId: number): Promise<void> {
  await trx.deleteFrom('jobs').where('id', '=', jobId).execute();
}

/** Finishes many jobs in the transaction that records their outcomes (a delivery group commit): one
 * statement per 500 ids rather than one per job. */
export async function completeJobs(trx: Kysely<Database>, jobIds: readonly number[]): Promise<void> {
  for (let i = 0; i < jobIds.length; i += 500) await trx.deleteFrom('jobs').where('id', 'in', jobIds.slice(i, i + 500)).execute();
}
