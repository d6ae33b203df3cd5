import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { bump } from '../count-map.js';
import { backoffDelay, DEFAULT_SCHEDULE } from './backoff.js';
import { claimJobs } from './claim.js';
import { completeJob } from './complete.js';
import { rescheduleJob } from './reschedule.js';
import { beat, forgetWorker, purgeStaleWorkers, releaseLeases, renewLeases } from './renew.js';
import type { Job } from './types.js';

export interface JobHandler {
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
   * `release` hands the job's group slot back before the returned promise settles: a delivery whose SMTP
   * work is done (its connection is back in the pool) and that only waits for its outcome's commit. The job
   * keeps its queue slot and its lease until it settles (stop() and runUntilIdle() still wait for it): a
   * process never holds more than `concurrency` unsettled jobs of a queue, which is what bounds the work a
   * crash makes others redo (README, "Crash safety").
   * `handover` is what the code that stored a leased job gave with it (Slot.start): what it held in memory
   * anyway, so the handler need not read it back. Absent after a claim, where the stored row is all there is.
   */
  handle(job: Job, release: () => void, handover?: unknown): Promise<void>;
  onGiveUp?(job: Job, error: unknown): Promise<void>;
}

export interface RunnerOptions {
  database: Db;
  clock: Clock;
  logger: Logger;
  /** How often an idle runner looks for due jobs (other processes' work, retries coming due). */
  pollMs?: number;
  /** How often the leases of running jobs are renewed and the worker's heartbeat row written (renew.ts). */
  heartbeatMs?: number;
}

/** Default lease on a claimed job; the heartbeat renews it while the job runs (renew.ts). */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * A slot of a queue (and of the job's group) held for a job about to be stored already leased to this runner
 * (enqueue-leased.ts). It counts as a job in flight from reserve() on, so the runner never holds more than
 * its concurrency of unsettled jobs. Exactly one of start() (after the job's commit) or cancel() (the commit
 * failed, or stored no job) gives it back; a slot never started, as in a process killed after the commit,
 * leaves a leased row that any runner claims again after `leaseMs`.
 */
export interface Slot {
  readonly workerId: string;
  readonly leaseMs: number;
  /** Runs the stored job in this slot; `handover` reaches the handler (JobHandler.handle). */
  start(job: Job, handover?: unknown): void;
  cancel(): void;
}

/** Claims due jobs for its handlers and runs them with bounded concurrency. */
export class JobRunner {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly inflight = new Map<string, number>();
  private readonly groupInflight = new Map<string, number>();
  /**
   * Jobs stored leased in a slot reserved while their group was full (reserve()), waiting in this process
   * for a group slot: counted per group (reserved or handed over), and the handed-over ones in order.
   */
  private readonly groupWaiters = new Map<string, number>();
  private readonly waitLists = new Map<string, Array<() => void>>();
  private readonly running = new Set<Promise<void>>();
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private wakeResolve: (() => void) | null = null;
  private loopDone: Promise<void> | null = null;
  /** Jobs this runner holds a lease on (running, or waiting for their outcome's commit): id -> lease length. */
  private readonly leased = new Map<number, number>();
  private beatTimer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  /** When this runner last wrote its heartbeat (clock time), or null when it never did. */
  lastBeatAt: number | null = null;
  private claimFailures = 0;
  /**
   * The queues the next round claims for: null is every queue (a poll, a start, a wake that names none).
   * A job settling frees room in its own queue only, and an enqueue names what it filled: with seven queues
   * in `serve`, claiming for all of them at each wake-up was seven queries where one or two could find work.
   * Whatever a named wake-up misses (another process's jobs, a retry coming due) the next poll claims.
   */
  private due: Set<string> | null = null;
  /** A wake-up came since the current round began (kick()). */
  private woken = false;
  /**
   * Queues whose last claim found nothing due (and left no group out): no job of theirs waits in the database
   * as far as this runner knows. A settling job of such a queue does not claim (the one claim per settled
   * job that bench:inbound profiled), and reserve() may hand out its free slots. A wake-up naming the queue
   * (an enqueue), a refused reservation (its job is enqueued unleased) or a poll that finds work forgets it.
   */
  private readonly drained = new Set<string>();
  /** Slots reserved and not yet started or cancelled; stop() waits for them. */
  private readonly reserved = new Set<Promise<void>>();
  /** Claim queries run and jobs taken by claims or handed over with a reserved slot (bench:inbound). */
  readonly stats = { claims: 0, claimed: 0, handedOver: 0 };

  constructor(private readonly o: RunnerOptions) {}

  /** True between start() and stop(): this process runs the worker role. */
  get started(): boolean {
    return !this.stopped;
  }

  register(handler: JobHandler): void {
    this.handlers.set(handler.queue, handler);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.startedAt = this.o.clock.now();
    this.loopDone = this.loop();
    void this.heartbeat();
    this.beatTimer = setInterval(() => void this.heartbeat(), this.heartbeatMs());
  }

  private heartbeatMs(): number {
    let ms = this.o.heartbeatMs ?? 10_000;
    // Renew at least three times per lease, so one late or failed renewal does not lose a lease.
    for (const h of this.handlers.values()) ms = Math.min(ms, Math.floor((h.leaseMs ?? DEFAULT_LEASE_MS) / 3));
    return Math.max(ms, 100);
  }

  /** Renews the leases of the jobs in flight and writes this worker's heartbeat row. */
  async heartbeat(): Promise<void> {
    const now = this.o.clock.now();
    try {
      const byLease = new Map<number, number[]>();
      for (const [id, ms] of this.leased) byLease.set(ms, [...(byLease.get(ms) ?? []), id]);
      for (const [ms, ids] of byLease) await renewLeases(this.o.database, this.workerId, ids, now + ms);
      await beat(this.o.database, this.workerId, this.startedAt || now, now);
      this.lastBeatAt = now;
      // Workers that stopped beating a day ago are gone for good.
      if (Math.random() < 0.01) await purgeStaleWorkers(this.o.database, now - 86_400_000);
    } catch (err) {
      this.o.logger.warn({ err: (err as Error).message, workerId: this.workerId }, 'heartbeat failed: database unreachable? leases are renewed on the next beat');
    }
  }

  /** Hands every job this runner still holds back to the queue (a stop that ran out of time). */
  async releaseClaimed(): Promise<number> {
    return releaseLeases(this.o.database, this.workerId);
  }

  /** Stops claiming, waits for the jobs in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loopDone;
    // A reserved slot settles when its commit does; one started then joins `running`.
    await Promise.allSettled([...this.reserved]);
    await Promise.allSettled([...this.running]);
    if (this.beatTimer) {
      clearInterval(this.beatTimer);
      this.beatTimer = null;
      await forgetWorker(this.o.database, this.workerId).catch(() => {});
    }
  }

  /**
   * Looks for work now (after an enqueue committed in this process, or a clock change in tests): in the
   * queues named, or in every queue.
   */
  wake(queues?: string | readonly string[]): void {
    if (queues === undefined) this.drained.clear();
    else for (const q of typeof queues === 'string' ? [queues] : queues) this.drained.delete(q);
    this.kick(queues);
  }

  /** Starts a round for the queues named (every queue with none), without a word on what waits in them. */
  private kick(queues?: string | readonly string[]): void {
    if (queues === undefined) this.due = null;
    else if (this.due !== null) for (const q of typeof queues === 'string' ? [queues] : queues) this.due.add(q);
    this.woken = true;
    this.wakeResolve?.();
  }

  /**
   * Holds a slot of `queue` (and a place in `groupKey`, under the handler's groupConcurrency) for a job the
   * caller is about to store leased to this runner, or null: the runner is not running, the queue has no free
   * slot, the group has as many jobs waiting here as it runs, or jobs of the queue wait in the database (they
   * go first: the caller enqueues normally, and the runner claims in order).
   */
  reserve(queue: string, groupKey: string | null = null): Slot | null {
    const h = this.handlers.get(queue);
    if (!h || this.stopped) return null;
    const gk = groupKey ? `${queue}|${groupKey}` : null;
    const cap = h.concurrency ?? 16;
    const gcap = gk !== null ? (h.groupConcurrency ?? Infinity) : Infinity;
    const running = gk !== null ? (this.groupInflight.get(gk) ?? 0) : 0;
    const waiters = gk !== null ? (this.groupWaiters.get(gk) ?? 0) : 0;
    // A job whose group is full may wait here for a slot of it (stored leased, handed over after its commit),
    // up to as many as the group runs at once: one busy application then holds at most twice its share of
    // the queue's slots, and its messages need no claim each time one of its posts ends.
    const waits = running + waiters >= gcap;
    if (!this.drained.has(queue) || (this.inflight.get(queue) ?? 0) >= cap || (waits && waiters >= gcap)) {
      this.drained.delete(queue);
      return null;
    }
    bump(this.inflight, queue, 1);
    if (gk) bump(waits ? this.groupWaiters : this.groupInflight, gk, 1);
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    this.reserved.add(settled);
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      this.reserved.delete(settled);
      settle();
      return true;
    };
    return {
      workerId: this.workerId,
      leaseMs: h.leaseMs ?? DEFAULT_LEASE_MS,
      start: (job, handover) => {
        if (!close()) return;
        this.stats.handedOver++;
        if (waits) this.waitForGroup(h, job, gk!, handover);
        // track() settles the job itself and never rejects.
        else void this.track(h, job, true, handover);
      },
      cancel: () => {
        if (!close()) return;
        bump(this.inflight, queue, -1);
        if (gk) bump(waits ? this.groupWaiters : this.groupInflight, gk, -1);
        this.kick(h.queue);
      },
    };
  }

  /** A handed-over job whose group was full: runs when a slot of its group frees (or now, if one has). */
  private waitForGroup(h: JobHandler, job: Job, gk: string, handover: unknown): void {
    this.leased.set(job.id, h.leaseMs ?? DEFAULT_LEASE_MS); // renewed while it waits
    let done!: () => void;
    const waiting = new Promise<void>((r) => (done = r));
    this.running.add(waiting); // stop() waits for it
    const begin = () => {
      bump(this.groupWaiters, gk, -1);
      bump(this.groupInflight, gk, 1);
      this.running.delete(waiting);
      void this.track(h, job, true, handover).finally(done);
    };
    if ((this.groupInflight.get(gk) ?? 0) < (h.groupConcurrency ?? Infinity)) begin();
    else {
      const list = this.waitLists.get(gk);
      if (list) list.push(begin);
      else this.waitLists.set(gk, [begin]);
    }
  }

  private count(queue: string, gk: string | null, d: number): void {
    bump(this.inflight, queue, d);
    if (gk) bump(this.groupInflight, gk, d);
  }

  /** Jobs of each group of `queue` running or waiting here, by group (without the queue's prefix): the claim's room. */
  private groupsHeld(queue: string): Map<string, number> {
    const held = new Map<string, number>();
    const prefix = `${queue}|`;
    for (const m of [this.groupInflight, this.groupWaiters]) {
      for (const [gk, n] of m) if (gk.startsWith(prefix)) bump(held, gk.slice(prefix.length), n);
    }
    return held;
  }

  /** Claims and runs every job due now, repeatedly, until none is left; for tests and the CLI. */
  async runUntilIdle(maxRounds = 1000): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxRounds; i++) {
      const n = await this.tick(true);
      await Promise.allSettled([...this.running]);
      total += n;
      if (n === 0) break;
    }
    return total;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let claimed = 0;
      let failed = false;
      try {
        claimed = await this.tick();
        if (this.claimFailures > 0) this.o.logger.info({ failures: this.claimFailures }, 'job claims work again');
        this.claimFailures = 0;
      } catch (err) {
        // The database is unreachable or refusing: back off (1 s doubling to 30 s) and say so at each try.
        failed = true;
        this.due = null;
        this.claimFailures++;
        const retryMs = Math.min(30_000, 1000 * 2 ** Math.min(this.claimFailures - 1, 5));
        this.o.logger.warn({ err: (err as Error).message, failures: this.claimFailures, retryInMs: retryMs }, 'job claim failed, retrying');
        if (!this.stopped) await this.idle(retryMs);
      }
      if (this.stopped) break;
      if (failed) continue;
      // A wake-up that came while the round was claiming (no idle() to resolve then) starts another round
      // at once: without this, a wake naming every queue during a round that found nothing waited for the
      // poll, since a settling job of a drained queue no longer wakes the loop.
      if (claimed === 0 && !this.woken) await this.idle(this.o.pollMs ?? 250);
      else await new Promise((r) => setImmediate(r));
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.wakeResolve = null;
        resolve();
      };
      this.wakeResolve = done;
      this.timer = setTimeout(() => {
        this.due = null; // a poll: every queue
        done();
      }, ms);
    });
  }

  /** One round: claim for each handler with spare capacity and start the jobs. Returns how many started. */
  private async tick(all = false): Promise<number> {
    let started = 0;
    const only = all ? null : this.due;
    this.due = new Set();
    this.woken = false;
    for (const h of this.handlers.values()) {
      if (only !== null && !only.has(h.queue)) continue;
      const cap = h.concurrency ?? 16;
      // Every unsettled job counts, also one whose group slot was released: a job waiting for its outcome's
      // commit has already been handed to the remote server, and if this process dies it is redone by
      // another. Holding at most `cap` of them is the bound on duplicates per killed worker.
      const held = this.inflight.get(h.queue) ?? 0;
      const free = cap - held;
      // A busy runner claims when a quarter of its room is free, not for every job that settles: each claim
      // is a query and a batched load, and claims of one or two jobs cost bench:deliver about 0.05 CPU ms per
      // message on PostgreSQL (0.65-0.70 with this against 0.74 without, quiet machine, 2026-11-23).
      if (free <= 0 || (held > 0 && free < Math.ceil(cap / 4))) continue;
      const inflight = h.groupConcurrency ? this.groupsHeld(h.queue) : new Map<string, number>();
      const excludeGroups = [...inflight].filter(([, n]) => n >= h.groupConcurrency!).map(([g]) => g);
      // Each group gets no more than the room it has left (the claim numbers jobs per group), so one claim can
      // start many groups' jobs without any group passing its cap.
      const limit = Math.min(free, 100);
      this.stats.claims++;
      const jobs = await claimJobs(this.o.database, {
        queues: [h.queue],
        workerId: this.workerId,
        limit,
        leaseMs: h.leaseMs ?? DEFAULT_LEASE_MS,
        now: this.o.clock.now(),
        excludeGroups,
        groupCap: h.groupConcurrency ? { cap: h.groupConcurrency, inflight } : undefined,
      });
      this.stats.claimed += jobs.length;
      for (const job of jobs) {
        started++;
        // track() settles the job itself and never rejects.
        void this.track(h, job);
      }
      // More may wait: the next round (at once, as something started) claims for this queue again.
      if (jobs.length > 0) {
        this.due?.add(h.queue);
        this.drained.delete(h.queue);
      } else if (excludeGroups.length === 0) {
        // Nothing due, no group left out: until an enqueue names the queue, settling jobs need not claim.
        this.drained.add(h.queue);
      }
    }
    return started;
  }

  /** Runs a claimed job, or one stored leased in a slot already counted (`counted`, reserve()). */
  private track(h: JobHandler, job: Job, counted = false, handover?: unknown): Promise<void> {
    const gk = job.group_key ? `${h.queue}|${job.group_key}` : null;
    if (!counted) this.count(h.queue, gk, 1);
    this.leased.set(job.id, h.leaseMs ?? DEFAULT_LEASE_MS);
    // A freed slot is worth a claim only when jobs may wait in the database; otherwise the next reservation
    // or the poll fills it.
    const freed = () => {
      if (!this.drained.has(h.queue)) this.kick(h.queue);
    };
    let groupSlot = gk !== null;
    const releaseGroup = () => {
      if (!groupSlot) return;
      groupSlot = false;
      bump(this.groupInflight, gk!, -1);
      // A job handed over while its group was full takes the slot first: it is older than any claim.
      const next = this.waitLists.get(gk!)?.shift();
      if (this.waitLists.get(gk!)?.length === 0) this.waitLists.delete(gk!);
      if (next) next();
      else freed();
    };
    const p = this.execute(h, job, releaseGroup, handover).finally(() => {
      releaseGroup();
      bump(this.inflight, h.queue, -1);
      this.running.delete(p);
      this.leased.delete(job.id);
      freed();
    });
    this.running.add(p);
    return p;
  }

  private async execute(h: JobHandler, job: Job, release: () => void, handover: unknown): Promise<void> {
    try {
      await h.handle(job, release, handover);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const { db } = this.o.database;
      try {
        if (h.maxAttempts !== undefined && job.attempts >= h.maxAttempts) {
          this.o.logger.warn({ queue: job.queue, jobId: job.id, attempts: job.attempts, err: message }, 'job given up');
          await h.onGiveUp?.(job, err);
          await completeJob(db, job.id);
        } else {
          const delay = backoffDelay(job.attempts, h.schedule ?? DEFAULT_SCHEDULE);
          this.o.logger.warn({ queue: job.queue, jobId: job.id, attempts: job.attempts, err: message }, 'job failed, will retry');
          await rescheduleJob(db, job.id, this.o.clock.now() + delay, message);
        }
      } catch (e2) {
        // The lease will expire and the job will be claimed again: nothing is lost.
        this.o.logger.error({ err: e2, jobId: job.id }, 'could not record job failure');
      }
    }
  }
}
