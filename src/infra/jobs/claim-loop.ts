// The runner's main loop, as a small state machine. It runs claim rounds (the runner's `round`, which
// claims and starts jobs) and between them waits:
//
//   stopped --start()--> claiming --round started jobs, or a wake-up came meanwhile--> claiming (next turn)
//                        claiming --round found nothing---------------------------------> idle
//                        claiming --round threw (database unreachable)-------------------> backing-off
//   idle        --wake-up (kick) or the poll timer--> claiming
//   backing-off --wake-up or the back-off timer-----> claiming (1 s doubling to 30 s)
//   any         --stop()----------------------------> stopped (the round under way finishes first)
//
// A round claims for the queues named by the wake-ups since the last round began (`due`), or for every queue
// after a poll, a back-off, or a wake-up naming none. A wake-up that comes while a round is claiming cannot
// cut an idle wait short (there is none yet): `woken` remembers it, and the loop goes round again instead of
// idling, so that no wake-up is lost.
import type { Logger } from '../logger.js';

export type ClaimLoopState = 'stopped' | 'claiming' | 'idle' | 'backing-off';

export interface ClaimLoopOptions {
  logger: Logger;
  /** How long an idle loop waits before a round for every queue (other processes' work, retries due). */
  pollMs: number;
  /** Claims for `queues` (null: every queue) and starts what it claims; returns how many jobs started. */
  round(queues: ReadonlySet<string> | null): Promise<number>;
}

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30_000;

export class ClaimLoop {
  private current: ClaimLoopState = 'stopped';
  /** Queues named since the current round began; null is every queue. */
  private due: Set<string> | null = null;
  /** A wake-up came since the current round began. */
  private woken = false;
  private interrupt: (() => void) | null = null;
  private done: Promise<void> | null = null;
  private failures = 0;

  constructor(private readonly o: ClaimLoopOptions) {}

  get state(): ClaimLoopState {
    return this.current;
  }

  start(): void {
    if (this.current !== 'stopped') return;
    this.current = 'claiming';
    this.due = null;
    this.done = this.run();
  }

  /** Ends the loop once the round under way (if any) is over. */
  async stop(): Promise<void> {
    this.current = 'stopped';
    this.interrupt?.();
    await this.done;
  }

  /** Asks for a round for `queues` (every queue when none is named): at once if idle, else after this round. */
  kick(queues?: string | readonly string[]): void {
    if (queues === undefined) this.due = null;
    else if (this.due !== null) for (const q of typeof queues === 'string' ? [queues] : queues) this.due.add(q);
    this.woken = true;
    this.interrupt?.();
  }

  /** The round under way found work in `queue`: the next round (at once, as jobs started) claims there again. */
  more(queue: string): void {
    this.due?.add(queue);
  }

  /** Runs one round now, for the queues due (or every queue with `all`); also what runUntilIdle drives. */
  async round(all = false): Promise<number> {
    const only = all ? null : this.due;
    this.due = new Set();
    this.woken = false;
    return this.o.round(only);
  }

  private async run(): Promise<void> {
    while (this.current !== 'stopped') {
      let started: number;
      try {
        started = await this.round();
        if (this.failures > 0) this.o.logger.info({ failures: this.failures }, 'job claims work again');
        this.failures = 0;
      } catch (err) {
        this.due = null;
        this.failures++;
        const retryMs = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(this.failures - 1, 5));
        this.o.logger.warn({ err: (err as Error).message, failures: this.failures, retryInMs: retryMs }, 'job claim failed, retrying');
        if (this.enter('backing-off')) await this.wait(retryMs);
        this.enter('claiming');
        continue;
      }
      if (started === 0 && !this.woken) {
        if (this.enter('idle')) await this.wait(this.o.pollMs);
      } else await new Promise((r) => setImmediate(r));
      this.enter('claiming');
    }
  }

  /** Moves to `next` unless stop() came meanwhile; false when stopped. */
  private enter(next: ClaimLoopState): boolean {
    if (this.current === 'stopped') return false;
    this.current = next;
    return true;
  }

  /** Waits `ms`, or less if kicked or stopped; a wait that runs out is a poll: every queue is due. */
  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.due = null;
        finish();
      }, ms);
      const finish = () => {
        clearTimeout(timer);
        this.interrupt = null;
        resolve();
      };
      this.interrupt = finish;
    });
  }
}
