// Adds jobs already leased to a runner of this process, in the transaction that stores the work they stand
// for (an inbound message), so that the runner can start them after the commit without a claim query
// (runner.ts, reserve()). The row is exactly what claim.ts leaves behind: locked_by and locked_until set,
// attempts counted as one claim. So a process that dies between the commit and the job's end leaves a job
// that any runner claims again once the lease has run out, as after a claim (README, "Crash safety").
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { insertRowsWith } from '../db/raw-insert.js';
import { dialectOf } from '../db/util.js';
import type { NewJob } from './enqueue.js';
import type { Job } from './types.js';

const COLUMNS = ['queue', 'payload', 'run_at', 'attempts', 'group_key', 'created_at', 'message_id', 'locked_by', 'locked_until'] as const;

export interface Lease {
  workerId: string;
  /** When the lease runs out (clock time); the runner's heartbeat renews it while the job runs. */
  until: number;
}

const identity = (queue: string, payload: string, runAt: number, groupKey: string | null, messageId: string | null) =>
  `${queue}\u0000${runAt}\u0000${groupKey ?? ''}\u0000${messageId ?? ''}\u0000${payload}`;

/**
 * Inserts `jobs` leased to `lease.workerId` inside the caller's transaction; returns the stored rows in the
 * order of `jobs`. Start them only once the transaction is committed (and synced): before that, the work
 * they stand for may still be lost.
 */
export async function enqueueLeasedJobs(trx: Kysely<Database>, jobs: NewJob[], now: number, lease: Lease): Promise<Job[]> {
  if (jobs.length === 0) return [];
  const rows = jobs.map((j) => [j.queue, JSON.stringify(j.payload), j.runAt, 1, j.groupKey ?? null, now, j.messageId ?? null, lease.workerId, lease.until]);
  const stored = (await insertRowsWith(trx, dialectOf(trx), 'jobs', COLUMNS, rows, 'returning *', 500)) as unknown as Job[];
  // RETURNING promises no order on a multi-row insert: each row goes back to the job it was made from. Two
  // jobs with the same content are interchangeable, so either row may go to either.
  const byContent = new Map<string, Job[]>();
  for (const r of stored) {
    const k = identity(r.queue, r.payload, r.run_at, r.group_key, r.message_id);
    const same = byContent.get(k);
    if (same) same.push(r);
    else byContent.set(k, [r]);
  }
  return rows.map((row) => {
    const job = byContent.get(identity(row[0] as string, row[1] as string, row[2] as number, row[4] as string | null, row[6] as string | null))?.shift();
    if (!job) throw new Error('a leased job was inserted but not returned');
    return job;
  });
}
