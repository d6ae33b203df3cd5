import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { insertRowsWith } from '../db/raw-insert.js';
import { dialectOf } from '../db/util.js';

const JOB_COLUMNS = ['queue', 'payload', 'run_at', 'attempts', 'group_key', 'created_at', 'message_id'] as const;

export interface NewJob {
  queue: string;
  payload: unknown;
  runAt: number;
  groupKey?: string | null;
  /** The message the job concerns, when it concerns one: cancelJobsOfMessages and findJobsOfMessages
   * find the job by it (purging a stream, the DKIM key-removal check). */
  messageId?: string | null;
}

/**
 * Adds jobs inside the caller's transaction, so that a job exists exactly when the work it stands for was
 * committed (a message accepted, an event recorded). Call the runner's wake() after the commit.
 */
export async function enqueueJobs(trx: Kysely<Database>, jobs: NewJob[], now: number): Promise<void> {
  if (jobs.length === 0) return;
  // Raw multi-row SQL (src/infra/db/raw-insert.ts, chunked below SQLite's parameter limit): the query
  // builder's compilation costs more per row than the insert itself on the sending path.
  const rows = jobs.map((j) => [j.queue, JSON.stringify(j.payload), j.runAt, 0, j.groupKey ?? null, now, j.messageId ?? null]);
  await insertRowsWith(trx, dialectOf(trx), 'jobs', JOB_COLUMNS, rows, '', 500);
}
