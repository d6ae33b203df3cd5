// The delivery handler's one call into pacing: let the job through to its destination, or put it back on
// the queue until the destination may be sent to again. A job put back was not attempted: it gets no event
// and its attempt is not counted, so the retry schedule (options.ts) of its messages is not used up by
// waiting for a slow destination.
import type { AppContext } from '../../app-context.js';
import { deferJob } from '../../../infra/jobs/defer.js';
import type { Job } from '../../../infra/jobs/types.js';
import type { Pacer } from './pacer.js';
import type { Attempt } from './signals.js';

export interface PacingPass {
  /** Call once the SMTP work is done, with its results. */
  done(results: readonly Attempt[]): Promise<void>;
}

const UNPACED: PacingPass = { done: async () => {} };

/** A pass for the job's `count` messages to `domain`, or null when the job was deferred (nothing else to do). */
export async function paceDelivery(ctx: AppContext, pacer: Pacer | undefined, job: Job, domain: string, count: number): Promise<PacingPass | null> {
  if (!pacer) return UNPACED;
  const a = await pacer.admit(domain, job.id, count);
  if (a.ok) return a.ticket;
  await deferJob(ctx.db, job.id, a.until);
  ctx.logger.debug({ jobId: job.id, domain, until: new Date(a.until).toISOString(), reason: a.reason }, 'delivery: deferred by destination pacing');
  return null;
}
