import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Deletes the queued jobs that concern these messages (jobs.message_id, set by enqueueJobs), e.g. in the
 * transaction that deletes the messages. Returns how many were deleted. A job running meanwhile keeps its
 * lease and finds its message gone, as it would without the cancel.
 */
export async function cancelJobsOfMessages(trx: Kysely<Database>, messageIds: readonly string[]): Promise<number> {
  let n = 0;
  for (let i = 0; i < messageIds.length; i += 500) {
    const r = await trx.deleteFrom('jobs').where('message_id', 'in', messageIds.slice(i, i + 500)).executeTakeFirst();
    n += Number(r.numDeletedRows);
  }
  return n;
}
