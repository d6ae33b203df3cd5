// The pace of one destination after it throttled: how long to pause, how many messages a minute and how
// many connections are allowed, and how that recovers. Pure: the time is handed in (tests drive it).
//
// Multiplicative decrease, additive increase, as TCP does with its window (RFC 5681 3.1):
// - a throttling reply pauses the destination for a backoff that doubles with each throttle in a row
//   (base, 2 x base, ... up to a cap) and halves its rate (from the rate it was really sent at);
// - each delivered message then raises the rate by RECOVERY_STEP a minute, and clears the strikes; once
//   the rate is back at its ceiling (the configured maximum, or the rate seen when the throttling began)
//   the destination is no longer paced at all (the state is dropped).

export interface PaceLimits {
  /** Connections at once to a destination that is not being slowed (per worker process). */
  maxConnections: number;
  /** Messages a minute to one destination (per worker process); 0: no fixed limit, only what throttling teaches. */
  maxRatePerMinute: number;
  /** Pause after a first throttling reply; doubled for each further one in a row. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** The rate never drops below this while the destination is slowed. */
  minRatePerMinute: number;
}

export interface PaceState {
  /** Throttling replies in a row, without a delivery between them. */
  strikes: number;
  /** No new message goes to the destination before this time. */
  pausedUntil: number;
  /** Messages a minute allowed now. */
  ratePerMinute: number;
  /** Back at this rate, the destination is no longer paced. */
  ceilingPerMinute: number;
  /** When it last throttled: replies to jobs let through before then were already under way. */
  throttledAt: number;
  /** What the destination said last time it throttled (shown in logs). */
  lastReply: string;
  /** When the state last changed. */
  updatedAt: number;
}

/** Rate added per delivered message (messages a minute): from 1/min back to 600/min takes about ln(600) = 6.4 minutes. */
export const RECOVERY_STEP = 1;

export const DEFAULT_PACE_LIMITS: PaceLimits = {
  maxConnections: 10,
  maxRatePerMinute: 0,
  baseBackoffMs: 60_000,
  maxBackoffMs: 30 * 60_000,
  minRatePerMinute: 1,
};

export function backoffMs(strikes: number, limits: PaceLimits): number {
  return Math.min(limits.baseBackoffMs * 2 ** Math.max(0, strikes - 1), limits.maxBackoffMs);
}

/**
 * The state after a throttling reply. `admittedAt` is when the throttled job was let through: a job let
 * through before the last recorded throttle was already under way when it happened (several jobs sent at
 * once all meet the same throttle), so it does not count as another strike.
 */
export function afterThrottle(state: PaceState | null, limits: PaceLimits, o: { now: number; admittedAt: number; sentLastMinute: number; reply: string }): PaceState {
  if (state && o.admittedAt <= state.throttledAt) return state;
  const strikes = (state?.strikes ?? 0) + 1;
  const sent = Math.max(1, Math.round(o.sentLastMinute));
  const current = Math.min(state?.ratePerMinute ?? (limits.maxRatePerMinute || Infinity), sent);
  const rate = Math.max(limits.minRatePerMinute, Math.floor(current / 2));
  const ceiling = state?.ceilingPerMinute ?? Math.max(limits.maxRatePerMinute || sent, rate + 1);
  return { strikes, pausedUntil: o.now + backoffMs(strikes, limits), ratePerMinute: rate, ceilingPerMinute: ceiling, throttledAt: o.now, lastReply: o.reply, updatedAt: o.now };
}

/**
 * The state after `delivered` messages of a job let through at `admittedAt` went through; null once the
 * destination has recovered. A job let through before the last throttle proves nothing about the pace
 * that followed it.
 */
export function afterDeliveries(state: PaceState | null, delivered: number, now: number, admittedAt: number): PaceState | null {
  if (!state || delivered <= 0 || admittedAt <= state.throttledAt) return state;
  const rate = state.ratePerMinute + delivered * RECOVERY_STEP;
  if (rate >= state.ceilingPerMinute) return null;
  return { ...state, strikes: 0, ratePerMinute: rate, updatedAt: now };
}

/** Milliseconds between two messages to the destination; 0 when not limited. */
export function intervalMs(state: PaceState | null, limits: PaceLimits): number {
  const rate = state ? state.ratePerMinute : limits.maxRatePerMinute;
  return rate > 0 ? 60_000 / rate : 0;
}

/** Connections at once: the maximum, scaled down with the rate while the destination recovers (at least 1). */
export function connectionsAllowed(state: PaceState | null, limits: PaceLimits): number {
  if (!state) return limits.maxConnections;
  return Math.max(1, Math.min(limits.maxConnections, Math.floor((limits.maxConnections * state.ratePerMinute) / state.ceilingPerMinute)));
}
