// The job runner of a worker process, in three parts as graphile-worker splits its own: what it holds is
// counted by SlotCounts (slot-counts.ts: per queue and per group, pure), claims are made by a ClaimLoop
// (claim-loop.ts: named states, wake-ups, the poll, back-off), and the leases of what it holds are kept by a
// LeaseKeeper (lease-keeper.ts: renewals and the heartbeat row). This file joins them: it runs each job
// through its handler (handler.ts, which also records a failure for a retry), and takes the jobs handed over
// by enqueue-local.ts (stored already leased to it in the transaction of the work they stand for, so that no
// claim is needed).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { ClaimLoop } from './claim-loop.js';
import { claimJobs } from './claim.js';
import { type AnyHandler, type JobHandler, leaseOf, runHandler } from './handler.js';
import { LeaseKeeper } from './lease-keeper.js';
import { SlotCounts, type QueueLimits } from './slot-counts.js';
import { OpenSlots, type Slot } from './slot.js';
import type { Job } from './types.js';

export { DEFAULT_LEASE_MS, type JobHandler } from './handler.js';
export type { Slot } from './slot.js';

export interface RunnerOptions {
  database: Db;
  clock: Clock;
  logger: Logger;
  /** How often an idle runner looks for due jobs (other processes' work, retries coming due). */
  pollMs?: number;
  /** How often the leases of running jobs are renewed and the worker's heartbeat row written (renew.ts). */
  heartbeatMs?: number;
}

const DEFAULT_CONCURRENCY = 16;

/** Claims due jobs for its handlers and runs them with bounded concurrency. */
export class JobRunner {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly handlers = new Map<string, AnyHandler>();
  private readonly slots = new SlotCounts((queue) => this.limitsOf(queue));
  private readonly loop: ClaimLoop;
  private readonly leases: LeaseKeeper;
  /** Jobs running, or waiting here for a place in their group. */
  private readonly running = new Set<Promise<void>>();
  private readonly openSlots = new OpenSlots();
  /**
   * Queues whose last claim found nothing due (and left no group out): no job of theirs waits in the database
   * as far as this runner knows. A settling job of such a queue does not claim (the one claim per settled
   * job that bench:inbound profiled), and reserve() may hand out its free slots. A wake-up naming the queue
   * (an enqueue), a refused reservation (its job is enqueued unleased) or a poll that finds work forgets it.
   */
  private readonly drained = new Set<string>();
  private stopped = true;
  /** Claim queries run and jobs taken by claims or handed over with a reserved slot (bench:inbound). */
  readonly stats = { claims: 0, claimed: 0, handedOver: 0 };

  constructor(private readonly o: RunnerOptions) {
    this.loop = new ClaimLoop({ logger: o.logger, pollMs: o.pollMs ?? 250, round: (queues) => this.claimRound(queues) });
    this.leases = new LeaseKeeper({ database: o.database, clock: o.clock, logger: o.logger, workerId: this.workerId });
  }

  /** True between start() and stop(): this process runs the worker role. */
  get started(): boolean {
    return !this.stopped;
  }

  /** When this runner last wrote its heartbeat (clock time), or null when it never did. */
  get lastBeatAt(): number | null {
    return this.leases.lastBeatAt;
  }

  register<H>(handler: JobHandler<H>): void {
    this.handlers.set(handler.queue, handler as AnyHandler);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop.start();
    this.leases.start(this.heartbeatMs());
  }

  private heartbeatMs(): number {
    let ms = this.o.heartbeatMs ?? 10_000;
    // Renew at least three times per lease, so one late or failed renewal does not lose a lease.
    for (const h of this.handlers.values()) ms = Math.min(ms, Math.floor(leaseOf(h) / 3));
    return Math.max(ms, 100);
  }

  private limitsOf(queue: string): QueueLimits {
    const h = this.handlers.get(queue);
    return { concurrency: h?.concurrency ?? DEFAULT_CONCURRENCY, groupConcurrency: h?.groupConcurrency || Infinity };
  }

  /** Renews the leases of the jobs held and writes this worker's heartbeat row. */
  heartbeat(): Promise<void> {
    return this.leases.beat();
  }

  /** Hands every job this runner still holds back to the queue (a stop that ran out of time). */
  releaseClaimed(): Promise<number> {
    return this.leases.releaseAll();
  }

  /** Stops claiming, waits for the jobs in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    // A reserved slot settles when its commit does; one started then joins `running`.
    await this.openSlots.settled();
    await Promise.allSettled([...this.running]);
    await this.leases.stop();
  }

  /**
   * Looks for work now (after an enqueue committed in this process, or a clock change in tests): in the
   * queues named, or in every queue.
   */
  wake(queues?: string | readonly string[]): void {
    if (queues === undefined) this.drained.clear();
    else for (const q of typeof queues === 'string' ? [queues] : queues) this.drained.delete(q);
    this.loop.kick(queues);
  }

  /** Whether the last claim for `queue` found nothing due: reserve() may then hand out its free slots. */
  isDrained(queue: string): boolean {
    return this.drained.has(queue);
  }

  /**
   * Holds a slot of `queue` (and a place in `group`, under the handler's groupConcurrency) for a job the
   * caller is about to store leased to this runner, or null: the runner is not running, the queue has no free
   * slot, the group has as many jobs waiting here as it runs, or jobs of the queue wait in the database (they
   * go first: the caller enqueues normally, and the runner claims in order).
   */
  reserve<H = unknown>(queue: string, group: string | null = null): Slot<H> | null {
    const h = this.handlers.get(queue);
    if (!h || this.stopped) return null;
    const kind = this.drained.has(queue) ? this.slots.reserve(queue, group) : null;
    if (kind === null) {
      this.drained.delete(queue);
      return null;
    }
    return this.openSlots.add<H>(
      this.workerId,
      leaseOf(h),
      (job, handover) => {
        this.stats.handedOver++;
        if (kind === 'wait') this.waitForGroup(h, job, group!, handover);
        else void this.track(h, job, handover);
      },
      () => {
        this.slots.unreserve(queue, group, kind);
        this.loop.kick(queue);
      },
    );
  }

  /** A handed-over job whose group was full: runs when a place in its group frees (or now, if one has). */
  private waitForGroup(h: AnyHandler, job: Job, group: string, handover: unknown): void {
    this.leases.hold(job.id, leaseOf(h)); // renewed while it waits
    let done!: () => void;
    const waiting = new Promise<void>((r) => (done = r));
    this.running.add(waiting); // stop() waits for it
    const begin = () => {
      this.running.delete(waiting);
      void this.track(h, job, handover).finally(done);
    };
    if (this.slots.admit(h.queue, group, begin)) begin();
  }

  /** Claims and runs every job due now, repeatedly, until none is left; for tests and the CLI. */
  async runUntilIdle(maxRounds = 1000): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxRounds; i++) {
      const n = await this.loop.round(true);
      await Promise.allSettled([...this.running]);
      total += n;
      if (n === 0) break;
    }
    return total;
  }

  /** One round: claims for each handler (of `queues`, or all) with room and starts the jobs; returns how many. */
  private async claimRound(queues: ReadonlySet<string> | null): Promise<number> {
    let started = 0;
    for (const h of this.handlers.values()) {
      if (queues !== null && !queues.has(h.queue)) continue;
      // Every unsettled job counts, also one whose group place was released: a job waiting for its outcome's
      // commit has already been handed to the remote server, and if this process dies it is redone by
      // another. Holding at most `concurrency` of them is the bound on duplicates per killed worker.
      const room = this.slots.claimRoom(h.queue);
      if (!room) continue;
      this.stats.claims++;
      const jobs = await claimJobs(this.o.database, {
        queues: [h.queue],
        workerId: this.workerId,
        limit: room.limit,
        leaseMs: leaseOf(h),
        now: this.o.clock.now(),
        excludeGroups: room.full,
        groupCap: h.groupConcurrency ? { cap: h.groupConcurrency, inflight: room.held } : undefined,
      });
      this.stats.claimed += jobs.length;
      for (const job of jobs) {
        started++;
        this.slots.take(h.queue, job.group_key);
        // track() settles the job itself and never rejects.
        void this.track(h, job);
      }
      // More may wait: the next round (at once, as something started) claims for this queue again.
      if (jobs.length > 0) {
        this.loop.more(h.queue);
        this.drained.delete(h.queue);
      } else if (room.full.length === 0) {
        // Nothing due, no group left out: until an enqueue names the queue, settling jobs need not claim.
        this.drained.add(h.queue);
      }
    }
    return started;
  }

  /** Runs a job already counted in its slot and group (a claim's take(), a reservation, an admitted waiter). */
  private track(h: AnyHandler, job: Job, handover?: unknown): Promise<void> {
    const group = job.group_key;
    this.leases.hold(job.id, leaseOf(h));
    // A freed slot is worth a claim only when jobs may wait in the database; otherwise the next reservation
    // or the poll fills it.
    const freed = () => {
      if (!this.drained.has(h.queue)) this.loop.kick(h.queue);
    };
    let inGroup = group !== null;
    const releaseGroup = () => {
      if (!inGroup) return;
      inGroup = false;
      // A job handed over while its group was full takes the place first: it is older than any claim.
      const next = this.slots.leaveGroup(h.queue, group!);
      if (next) next();
      else freed();
    };
    const p = runHandler(h, job, releaseGroup, handover, this.o).finally(() => {
      releaseGroup();
      this.slots.settle(h.queue);
      this.running.delete(p);
      this.leases.drop(job.id);
      freed();
    });
    this.running.add(p);
    return p;
  }
}
