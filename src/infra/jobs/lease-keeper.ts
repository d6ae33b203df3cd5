// Keeps the leases of the jobs a runner holds (running, waiting for a place in their group, or waiting for
// their outcome's commit) and the runner's heartbeat row: every beat renews each lease to a full lease from
// now and writes the row that `mailroom status` and /readyz read (renew.ts says why leases are short).
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { beat, forgetWorker, purgeStaleWorkers, releaseLeases, renewLeases } from './renew.js';

/** Workers that stopped beating this long ago are gone for good: their rows are purged. */
const STALE_WORKER_MS = 86_400_000;

export class LeaseKeeper {
  /** Jobs held: id -> lease length. */
  private readonly held = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  /** The last beat asked for; the next one starts after it. */
  private beating: Promise<void> = Promise.resolve();
  /** When the last heartbeat was written (clock time), or null when none was. */
  lastBeatAt: number | null = null;

  constructor(
    private readonly o: { database: Db; clock: Clock; logger: Logger; workerId: string },
  ) {}

  hold(jobId: number, leaseMs: number): void {
    this.held.set(jobId, leaseMs);
  }

  drop(jobId: number): void {
    this.held.delete(jobId);
  }

  /** Beats now and every `everyMs` until stop(). */
  start(everyMs: number): void {
    if (this.timer) return;
    this.startedAt = this.o.clock.now();
    void this.beat();
    this.timer = setInterval(() => void this.beat(), everyMs);
  }

  /**
   * Renews the leases held and writes the heartbeat row; a failure is logged and the next beat tries again.
   * Beats run one after another, each reading the clock when it starts: two side by side (the timer's and an
   * explicit one) could write the row in the wrong order on a pool of connections, leaving the older time.
   */
  beat(): Promise<void> {
    const next = this.beating.then(() => this.beatOnce());
    this.beating = next;
    return next;
  }

  private async beatOnce(): Promise<void> {
    const now = this.o.clock.now();
    try {
      const byLease = new Map<number, number[]>();
      for (const [id, ms] of this.held) {
        const ids = byLease.get(ms);
        if (ids) ids.push(id);
        else byLease.set(ms, [id]);
      }
      for (const [ms, ids] of byLease) await renewLeases(this.o.database, this.o.workerId, ids, now + ms);
      await beat(this.o.database, this.o.workerId, this.startedAt || now, now);
      this.lastBeatAt = now;
      if (Math.random() < 0.01) await purgeStaleWorkers(this.o.database, now - STALE_WORKER_MS);
    } catch (err) {
      this.o.logger.warn({ err: (err as Error).message, workerId: this.o.workerId }, 'heartbeat failed: database unreachable? leases are renewed on the next beat');
    }
  }

  /** Hands every job still held back to the queue (a stop that ran out of time); returns how many. */
  releaseAll(): Promise<number> {
    return releaseLeases(this.o.database, this.o.workerId);
  }

  /** Stops beating and removes the heartbeat row (a stopped worker is gone, not stale). */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    // A beat under way would write the row again after its removal.
    await this.beating;
    await forgetWorker(this.o.database, this.o.workerId).catch((err: unknown) =>
      this.o.logger.error({ err, workerId: this.o.workerId }, 'job runner stop: the heartbeat row could not be removed (it ages out as stale)'),
    );
  }
}
