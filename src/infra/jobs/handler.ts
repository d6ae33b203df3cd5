// The handler of one queue, as the runner (runner.ts) sees it, and how one run of it ends: the handler
// finishes a job that succeeds itself; one that throws is rescheduled on the handler's back-off schedule, or
// given up after its last attempt.
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { backoffDelay, DEFAULT_SCHEDULE } from './backoff.js';
import { completeJob } from './complete.js';
import { rescheduleJob } from './reschedule.js';
import type { QueueLimits } from './slot-counts.js';
import type { Job } from './types.js';

/**
 * The handler of one queue. `H` is what the code that stores a job leased to this process hands over with it
 * (enqueue-local.ts): what it held in memory anyway, so that the handler need not read it back.
 */
export interface JobHandler<H = never> {
  queue: string;
  /** Jobs of this queue in flight at once in this process. */
  concurrency?: number;
  /** Jobs of one group_key in flight at once in this process. */
  groupConcurrency?: number;
  leaseMs?: number;
  /** After this many failed attempts the job is given up (onGiveUp, then deleted). */
  maxAttempts?: number;
  schedule?: readonly number[];
  /**
   * Does the work. On success the handler finishes the job itself (completeJob or rescheduleJob) in the
   * transaction that records the outcome. Throwing hands the job back for a retry on `schedule`.
   * `release` hands the job's group place back before the returned promise settles: a delivery whose SMTP
   * work is done (its connection is back in the pool) and that only waits for its outcome's commit. The job
   * keeps its queue slot and its lease until it settles (stop() and runUntilIdle() still wait for it): a
   * process never holds more than `concurrency` unsettled jobs of a queue, which is what bounds the work a
   * crash makes others redo (README, "Crash safety").
   * `handover` is absent after a claim, where the stored row is all there is.
   */
  handle(job: Job, release: () => void, handover?: H): Promise<void>;
  onGiveUp?(job: Job, error: unknown): Promise<void>;
}

/** Default lease on a claimed job; the heartbeat renews it while the job runs (renew.ts). */
export const DEFAULT_LEASE_MS = 30_000;

// A runner holds handlers of every handover type; each job reaches the handler of its own queue only.
export type AnyHandler = JobHandler<unknown>;

export function leaseOf(h: AnyHandler): number {
  return h.leaseMs ?? DEFAULT_LEASE_MS;
}

const DEFAULT_CONCURRENCY = 16;

/** The slots of a queue in this process, as its handler asks (none registered: the defaults). */
export function limitsOf(h: AnyHandler | undefined): QueueLimits {
  return { concurrency: h?.concurrency ?? DEFAULT_CONCURRENCY, groupConcurrency: h?.groupConcurrency || Infinity };
}

/** How often the leases of running jobs are renewed: every `ms`, or more often for a handler's short lease. */
export function renewEvery(handlers: Iterable<AnyHandler>, ms = 10_000): number {
  // Renew at least three times per lease, so one late or failed renewal does not lose a lease.
  for (const h of handlers) ms = Math.min(ms, Math.floor(leaseOf(h) / 3));
  return Math.max(ms, 100);
}

/** Runs `job` through its handler; a failure is recorded for a retry, or the job given up. Never rejects. */
export async function runHandler(
  h: AnyHandler,
  job: Job,
  release: () => void,
  handover: unknown,
  o: { database: Db; clock: Clock; logger: Logger },
): Promise<void> {
  try {
    await h.handle(job, release, handover);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const { db } = o.database;
    try {
      if (h.maxAttempts !== undefined && job.attempts >= h.maxAttempts) {
        o.logger.warn({ queue: job.queue, jobId: job.id, attempts: job.attempts, err: message }, 'job given up');
        await h.onGiveUp?.(job, err);
        await completeJob(db, job.id);
      } else {
        const delay = backoffDelay(job.attempts, h.schedule ?? DEFAULT_SCHEDULE);
        o.logger.warn({ queue: job.queue, jobId: job.id, attempts: job.attempts, err: message }, 'job failed, will retry');
        await rescheduleJob(db, job.id, o.clock.now() + delay, message);
      }
    } catch (e2) {
      // The lease will expire and the job will be claimed again: nothing is lost.
      o.logger.error({ err: e2, jobId: job.id }, 'could not record job failure');
    }
  }
}
