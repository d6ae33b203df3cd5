// Per-destination pacing in one worker process: lets a delivery job through to its destination, or says
// until when it must wait. A destination is the recipient domain (the job's group, so deciding needs no DNS
// look-up; a provider that throttles answers for the domains it hosts one by one), or the relay when one is
// configured (a relay whose own signals say to slow down slows all mail through it; its connections are not
// capped here, MAILROOM_DELIVERY_CONCURRENCY does that). What slows a destination, and what is only one
// recipient's deferral, is signals.ts's to say.
//
// What is shared between processes is the throttling state (store.ts). The connection cap, the
// messages-a-minute spacing and the count of what was sent are per process: N worker processes may send N
// times the rate, which the shared pause and halved rate bring back down when the destination objects.
import type { AppContext } from '../../app-context.js';
import type { Clock } from '../../../infra/clock.js';
import type { Logger } from '../../../infra/logger.js';
import { afterDeliveries, afterThrottle, connectionsAllowed, DEFAULT_PACE_LIMITS, intervalMs, type PaceLimits } from './pace.js';
import { PaceStore, type PaceStateStore } from './store.js';
import { destinationSignal, sameReplyKey, type Attempt } from './signals.js';
import { SAME_REPLY_RECIPIENTS, SameReplyWindow } from './window.js';

export interface PaceTicket {
  destination: string;
  admittedAt: number;
  /** Hands the connection back and learns from the replies (throttled: slow down; delivered: recover). */
  done(results: readonly Attempt[]): Promise<void>;
}

export type Admission = { ok: true; ticket: PaceTicket } | { ok: false; until: number; reason: 'paused' | 'rate' };

interface Local {
  inUse: number;
  waiting: Array<() => void>;
  /** Earliest time the next message may go (rate spacing). */
  nextAt: number;
  /** Slots handed to deferred jobs: job id -> time. A job coming back at its slot goes through. */
  reservations: Map<number, number>;
  /** Messages sent in the current and the previous minute (a sliding estimate of the real rate). */
  minute: number;
  count: number;
  previous: number;
  usedAt: number;
  /** Throttling-looking deferrals of single recipients lately: the same one for many slows the destination. */
  deferrals: SameReplyWindow;
}

const MINUTE = 60_000;
/** How far ahead rate slots are handed to deferred jobs. */
const RESERVE_AHEAD_MS = 2 * MINUTE;

export class Pacer {
  private readonly local = new Map<string, Local>();
  private admits = 0;

  constructor(
    private readonly o: { store: PaceStateStore; limits: PaceLimits; clock: Clock; logger: Logger; relay: string | null },
  ) {}

  destinationOf(domain: string): string {
    return this.o.relay ?? domain.toLowerCase();
  }

  private entry(destination: string, now: number): Local {
    let l = this.local.get(destination);
    if (!l) {
      l = { inUse: 0, waiting: [], nextAt: 0, reservations: new Map(), minute: Math.floor(now / MINUTE), count: 0, previous: 0, usedAt: now, deferrals: new SameReplyWindow() };
      this.local.set(destination, l);
    }
    l.usedAt = now;
    return l;
  }

  private sentPerMinute(l: Local, now: number): number {
    const m = Math.floor(now / MINUTE);
    if (m !== l.minute) {
      l.previous = m === l.minute + 1 ? l.count : 0;
      l.count = 0;
      l.minute = m;
    }
    return l.previous * (1 - (now % MINUTE) / MINUTE) + l.count;
  }

  /** Lets `count` messages of job `jobId` through to the destination of `domain`, or says until when to wait. */
  async admit(domain: string, jobId: number, count: number): Promise<Admission> {
    const destination = this.destinationOf(domain);
    const { store, limits, clock } = this.o;
    if (++this.admits % 1000 === 0) this.prune(clock.now());
    let state = await store.get(destination, clock.now());
    if (state && state.pausedUntil > clock.now()) return { ok: false, until: state.pausedUntil, reason: 'paused' };
    const l = this.entry(destination, clock.now());
    const capped = this.o.relay === null;
    if (capped) {
      while (l.inUse >= connectionsAllowed(state, limits)) await new Promise<void>((resolve) => l.waiting.push(resolve));
      l.inUse++;
    }
    let held = capped;
    const release = () => {
      if (!held) return;
      held = false;
      l.inUse--;
      l.waiting.shift()?.();
    };
    // The destination may have throttled while this job waited for a connection.
    const now = clock.now();
    state = await store.get(destination, now);
    if (state && state.pausedUntil > now) {
      release();
      return { ok: false, until: state.pausedUntil, reason: 'paused' };
    }
    const gap = intervalMs(state, limits);
    const slot = l.reservations.get(jobId);
    l.reservations.delete(jobId);
    // A job coming back at the slot it was given goes through: the slot was counted when it was handed out.
    const reserved = slot !== undefined && slot <= now;
    if (gap > 0 && !reserved) {
      if (l.nextAt > now) {
        release();
        // Slots are handed out only a little ahead: the rate recovers with each delivery, and slots far ahead
        // would keep the old pace. Jobs beyond come back at a random time after that, to be given a slot then.
        if (l.nextAt - now > RESERVE_AHEAD_MS) return { ok: false, until: now + RESERVE_AHEAD_MS + Math.floor(Math.random() * RESERVE_AHEAD_MS), reason: 'rate' };
        const until = l.nextAt;
        l.nextAt = until + gap * count;
        l.reservations.set(jobId, until);
        return { ok: false, until, reason: 'rate' };
      }
      l.nextAt = now + gap * count;
    }
    this.sentPerMinute(l, now);
    l.count += count;
    const ticket: PaceTicket = {
      destination,
      admittedAt: now,
      // The connection is handed back after the state is written, so that a job waiting for it sees a throttle.
      done: async (results) => {
        try {
          await this.learn(destination, l, now, results);
        } finally {
          release();
        }
      },
    };
    return { ok: true, ticket };
  }

  private async learn(destination: string, l: Local, admittedAt: number, results: readonly Attempt[]): Promise<void> {
    const { store, limits, clock, logger } = this.o;
    const delivered = results.filter((r) => r.ok).length;
    const now = clock.now();
    const signal = destinationSignal(results) ?? this.sameReplyFor(l, results, now);
    try {
      if (signal) {
        const text = signal.attempt.reply.text;
        const sentLastMinute = this.sentPerMinute(l, now);
        const before = await store.get(destination, now);
        const s = await store.update(destination, now, (st) => afterThrottle(st, limits, { now, admittedAt, sentLastMinute, reply: text }));
        if (s && s !== before && s.updatedAt === now) {
          logger.warn(
            { destination, reply: text, why: signal.why, pausedUntil: new Date(s.pausedUntil).toISOString(), ratePerMinute: s.ratePerMinute, strikes: s.strikes },
            'delivery: destination throttles, slowing down',
          );
        }
      } else if (delivered > 0 && (await store.get(destination, now))) {
        const s = await store.update(destination, now, (st) => afterDeliveries(st, delivered, now, admittedAt));
        if (s === null) logger.info({ destination }, 'delivery: destination recovered from throttling');
      }
    } catch (err) {
      logger.warn({ err, destination }, 'delivery: could not record the pace of a destination');
    }
  }

  /**
   * When no result slows the destination by itself: a recipient's deferral that makes the same reply for
   * SAME_REPLY_RECIPIENTS distinct recipients of this destination within the window (window.ts) does.
   */
  private sameReplyFor(l: Local, results: readonly Attempt[], now: number): { attempt: Attempt; why: string } | null {
    for (const r of results) {
      const key = sameReplyKey(r);
      if (key && !r.ok && r.exchange && l.deferrals.note(key, r.exchange.to, now)) return { attempt: r, why: `the same reply for ${SAME_REPLY_RECIPIENTS} recipients` };
    }
    return null;
  }

  /** Forgets destinations not used for ten minutes (nothing in flight, no reservation still ahead). */
  private prune(now: number): void {
    for (const [d, l] of this.local) {
      for (const [job, at] of l.reservations) if (at < now - 10 * MINUTE) l.reservations.delete(job);
      if (l.inUse === 0 && l.waiting.length === 0 && l.reservations.size === 0 && l.usedAt < now - 10 * MINUTE) this.local.delete(d);
    }
  }
}

/** The process's pacer, from the configuration (MAILROOM_DEST_MAX_CONNECTIONS, MAILROOM_DEST_MAX_RATE). */
export function createPacer(ctx: AppContext, limits: Partial<PaceLimits> = {}): Pacer {
  const relay = ctx.config.smtpRelay;
  return new Pacer({
    store: new PaceStore(ctx.db),
    limits: { ...DEFAULT_PACE_LIMITS, maxConnections: ctx.config.destMaxConnections, maxRatePerMinute: ctx.config.destMaxRatePerMinute, ...limits },
    clock: ctx.clock,
    logger: ctx.logger,
    relay: relay ? `relay:${relay.host}:${relay.port}` : null,
  });
}
