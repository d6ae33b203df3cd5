// The pace of throttled destinations, shared by every worker process through the destination_pace table
// (migration 0022). Read cheaply: each process keeps the whole table (only destinations being slowed down
// have a row, so it is small) and reads it again at most every `ttlMs`; a destination this process saw
// throttle is updated in its copy at once. Written only when a destination throttles or, while it is
// slowed, when messages get through: mail to destinations that never throttle costs no write at all.
//
// Updates read the row, apply the pure rule (pace.ts) and write it back without a lock: two processes
// updating one destination at the same moment may lose one step of recovery or count one strike, which
// the next reply corrects; it never blocks a delivery.
import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/db/schema.js';
import type { PaceState } from './pace.js';

/** A row not updated for this long describes a throttling long over: ignored and deleted. */
const STALE_MS = 24 * 3_600_000;

type Row = Database['destination_pace'];

function toState(r: Row): PaceState {
  return {
    strikes: Number(r.strikes),
    pausedUntil: Number(r.paused_until),
    ratePerMinute: Number(r.rate_per_minute),
    ceilingPerMinute: Number(r.ceiling_per_minute),
    throttledAt: Number(r.throttled_at),
    lastReply: r.last_reply,
    updatedAt: Number(r.updated_at),
  };
}

/** Where the pacer keeps the throttling state: the database (PaceStore), or memory in unit tests. */
export interface PaceStateStore {
  get(destination: string, now: number): Promise<PaceState | null>;
  update(destination: string, now: number, change: (s: PaceState | null) => PaceState | null): Promise<PaceState | null>;
}

export class PaceStore implements PaceStateStore {
  private rows = new Map<string, PaceState>();
  private readAt = -Infinity;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlMs = 5_000,
  ) {}

  /** The destination's pace, or null when it is not being slowed down. */
  async get(destination: string, now: number): Promise<PaceState | null> {
    if (now - this.readAt >= this.ttlMs || now < this.readAt) await this.refresh(now);
    const s = this.rows.get(destination);
    return s && now - s.updatedAt < STALE_MS ? s : null;
  }

  private refresh(now: number): Promise<void> {
    this.reading ??= (async () => {
      try {
        const rows = await this.db.selectFrom('destination_pace').selectAll().execute();
        this.rows = new Map(rows.map((r) => [r.destination, toState(r)]));
        this.readAt = now;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** Applies `change` to the stored state (null: no row) and stores the result (null: row removed). */
  async update(destination: string, now: number, change: (s: PaceState | null) => PaceState | null): Promise<PaceState | null> {
    const row = await this.db.selectFrom('destination_pace').selectAll().where('destination', '=', destination).executeTakeFirst();
    const before = row && now - Number(row.updated_at) < STALE_MS ? toState(row) : null;
    const after = change(before);
    if (after === before) {
      if (before) this.rows.set(destination, before);
      return before;
    }
    if (after === null) {
      await this.db.deleteFrom('destination_pace').where('destination', '=', destination).execute();
      this.rows.delete(destination);
      return null;
    }
    const values = {
      strikes: after.strikes,
      paused_until: after.pausedUntil,
      rate_per_minute: after.ratePerMinute,
      ceiling_per_minute: after.ceilingPerMinute,
      throttled_at: after.throttledAt,
      last_reply: after.lastReply.slice(0, 500),
      updated_at: after.updatedAt,
    };
    await this.db
      .insertInto('destination_pace')
      .values({ destination, ...values })
      .onConflict((oc) => oc.column('destination').doUpdateSet(values))
      .execute();
    if (Math.random() < 0.05) await this.db.deleteFrom('destination_pace').where('updated_at', '<', now - STALE_MS).execute();
    this.rows.set(destination, after);
    return after;
  }
}
