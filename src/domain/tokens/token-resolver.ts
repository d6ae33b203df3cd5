// Resolves presented tokens against the database on every request, with no cache: a revoked token (its
// server deleted, by this process or any other sharing the database) is refused by the very next request.
// A time-based cache would keep a deleted server's token working for its lifetime in every process but the
// one that deleted it, and invalidating it there would need a message bus.
//
// To keep the sending path from paying one query per request, lookups are grouped like a group commit:
// tokens presented while a lookup is running wait for the next one, which resolves all of them with one
// indexed `IN (...)` query. Every request is answered by a query that STARTED after the request arrived, so
// a deletion committed before the request is always seen (PostgreSQL read committed: each statement sees
// what was committed before it began; SQLite WAL: each read starts from the latest commit).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { hashToken, resolveDigests, type ResolvedToken } from './tokens.js';

/** Digests resolved by one query; more wait for the next. */
export const MAX_GROUP = 256;

interface Waiter {
  resolve(v: ResolvedToken | null): void;
  reject(err: unknown): void;
}

export class TokenResolver {
  private pending = new Map<string, Waiter[]>();
  private running = false;
  private scheduled = false;
  /** Queries run, for tests and diagnostics. */
  queries = 0;

  constructor(private readonly db: Kysely<Database>) {}

  resolve(value: string): Promise<ResolvedToken | null> {
    const digest = hashToken(value);
    return new Promise((resolve, reject) => {
      const list = this.pending.get(digest);
      if (list) list.push({ resolve, reject });
      else this.pending.set(digest, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the current poll phase: requests parsed from sockets in the same phase share
    // the lookup, without adding a timer's delay.
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.running || this.pending.size === 0) return;
    this.running = true;
    const group = new Map<string, Waiter[]>();
    for (const [digest, waiters] of this.pending) {
      if (group.size >= MAX_GROUP) break;
      group.set(digest, waiters);
    }
    for (const digest of group.keys()) this.pending.delete(digest);
    try {
      this.queries++;
      const found = await resolveDigests(this.db, [...group.keys()]);
      for (const [digest, waiters] of group) for (const w of waiters) w.resolve(found.get(digest) ?? null);
    } catch (err) {
      for (const waiters of group.values()) for (const w of waiters) w.reject(err);
    } finally {
      this.running = false;
      if (this.pending.size > 0) this.schedule();
    }
  }
}
