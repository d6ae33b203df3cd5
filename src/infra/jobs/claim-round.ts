// The runner's claim round (ClaimLoop's `round`): for each queue with room, one claim of as many due jobs as
// its slots and groups allow, each started at once. And what the rounds learn: the queues whose last claim
// found nothing due (and left no group out) are drained, no job of theirs waits in the database as far as
// this runner knows. A settling job of a drained queue does not claim (the one claim per settled job that
// bench:inbound profiled), and the runner's reserve() may hand out its free slots. A wake-up naming the queue
// (an enqueue), a refused reservation (its job is enqueued unleased) or a round that finds work forgets it.
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { claimJobs } from './claim.js';
import { type AnyHandler, leaseOf } from './handler.js';
import type { SlotCounts } from './slot-counts.js';
import type { Job } from './types.js';

export interface ClaimRoundOptions {
  database: Db;
  clock: Clock;
  workerId: string;
  handlers: ReadonlyMap<string, AnyHandler>;
  slots: SlotCounts;
  /** The runner's counts of claim queries run and jobs they took (bench:inbound). */
  stats: { claims: number; claimed: number };
  /** Runs a claimed job, already counted in its slot and group (never rejects). */
  run(h: AnyHandler, job: Job): void;
  /** Jobs of `queue` may still be due: the loop claims for it again at once. */
  more(queue: string): void;
}

export class ClaimRounds {
  private readonly drained = new Set<string>();

  constructor(private readonly o: ClaimRoundOptions) {}

  /** Whether the last claim for `queue` found nothing due. */
  isDrained(queue: string): boolean {
    return this.drained.has(queue);
  }

  /** Jobs of `queues` (of every queue when none is named) may wait in the database. */
  forget(queues?: string | readonly string[]): void {
    if (queues === undefined) this.drained.clear();
    else for (const q of typeof queues === 'string' ? [queues] : queues) this.drained.delete(q);
  }

  /** One round: claims for each handler (of `queues`, or all) with room and starts the jobs; returns how many. */
  async claim(queues: ReadonlySet<string> | null): Promise<number> {
    const { o } = this;
    let started = 0;
    for (const h of o.handlers.values()) {
      if (queues !== null && !queues.has(h.queue)) continue;
      // Every unsettled job counts, also one whose group place was released: a job waiting for its outcome's
      // commit has already been handed to the remote server, and if this process dies it is redone by
      // another. Holding at most `concurrency` of them is the bound on duplicates per killed worker.
      const room = o.slots.claimRoom(h.queue);
      if (!room) continue;
      o.stats.claims++;
      const jobs = await claimJobs(o.database, {
        queues: [h.queue],
        workerId: o.workerId,
        limit: room.limit,
        leaseMs: leaseOf(h),
        now: o.clock.now(),
        excludeGroups: room.full,
        groupCap: h.groupConcurrency ? { cap: h.groupConcurrency, inflight: room.held } : undefined,
      });
      o.stats.claimed += jobs.length;
      for (const job of jobs) {
        started++;
        o.slots.take(h.queue, job.group_key);
        o.run(h, job);
      }
      // More may wait: the next round (at once, as something started) claims for this queue again.
      if (jobs.length > 0) {
        o.more(h.queue);
        this.drained.delete(h.queue);
      } else if (room.full.length === 0) {
        // Nothing due, no group left out: until an enqueue names the queue, settling jobs need not claim.
        this.drained.add(h.queue);
      }
    }
    return started;
  }
}
