// The job runner of a worker process, in parts as graphile-worker splits its own: what it holds is counted by
// SlotCounts (slot-counts.ts: per queue and per group, pure), claims are made by a ClaimLoop (claim-loop.ts:
// named states, wake-ups, the poll, back-off) running ClaimRounds (claim-round.ts: one round's claims, and the
// queues known to have nothing due), and the leases of what it holds are kept by a LeaseKeeper
// (lease-keeper.ts: renewals and the heartbeat row). This file joins them: it runs each job through its
// handler (handler.ts: its limits, and a failure recorded for a retry), and takes the jobs handed over by
// enqueue-local.ts (stored already leased to it in the transaction of the work they stand for: no claim).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { ClaimLoop } from './claim-loop.js';
import { ClaimRounds } from './claim-round.js';
import { type AnyHandler, type JobHandler, leaseOf, limitsOf, renewEvery, runHandler } from './handler.js';
import { LeaseKeeper } from './lease-keeper.js';
import { SlotCounts } from './slot-counts.js';
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

/** Claims due jobs for its handlers and runs them with bounded concurrency. */
export class JobRunner {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly handlers = new Map<string, AnyHandler>();
  private readonly slots = new SlotCounts((queue) => limitsOf(this.handlers.get(queue)));
  private readonly loop: ClaimLoop;
  private readonly rounds: ClaimRounds;
  private readonly leases: LeaseKeeper;
  /** Jobs running, or waiting here for a place in their group. */
  private readonly running = new Set<Promise<void>>();
  private readonly openSlots = new OpenSlots();
  private stopped = true;
  /** Claim queries run and jobs taken by claims or handed over with a reserved slot (bench:inbound). */
  readonly stats = { claims: 0, claimed: 0, handedOver: 0 };

  constructor(private readonly o: RunnerOptions) {
    const { database, clock } = o;
    const { workerId, handlers, slots, stats } = this;
    // track() settles the job itself and never rejects.
    const run = (h: AnyHandler, job: Job) => void this.track(h, job);
    this.rounds = new ClaimRounds({ database, clock, workerId, handlers, slots, stats, run, more: (queue) => this.loop.more(queue) });
    this.loop = new ClaimLoop({ logger: o.logger, pollMs: o.pollMs ?? 250, round: (queues) => this.rounds.claim(queues) });
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
    this.leases.start(renewEvery(this.handlers.values(), this.o.heartbeatMs));
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
    this.rounds.forget(queues);
    this.loop.kick(queues);
  }

  /** Whether the last claim for `queue` found nothing due: reserve() may then hand out its free slots. */
  isDrained(queue: string): boolean {
    return this.rounds.isDrained(queue);
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
    const kind = this.rounds.isDrained(queue) ? this.slots.reserve(queue, group) : null;
    if (kind === null) {
      this.rounds.forget(queue);
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
      // A job handed over by a commit while the round's jobs ran (a bulk page's deliveries, stored leased to
      // this runner) is in flight, not claimed: idle only when nothing was claimed and nothing runs.
      if (n === 0 && this.running.size === 0) break;
    }
    return total;
  }

  /** Runs a job already counted in its slot and group (a claim's take(), a reservation, an admitted waiter). */
  private track(h: AnyHandler, job: Job, handover?: unknown): Promise<void> {
    const group = job.group_key;
    this.leases.hold(job.id, leaseOf(h));
    // A freed slot is worth a claim only when jobs may wait in the database; otherwise the next reservation
    // or the poll fills it.
    const freed = () => {
      if (!this.rounds.isDrained(h.queue)) this.loop.kick(h.queue);
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
