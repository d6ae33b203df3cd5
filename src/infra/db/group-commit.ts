// Group commit: items submitted while a transaction is being written queue up, and the next transaction
// takes all of them, so one durable commit (an fsync under SQLite's synchronous=FULL, a WAL flush on
// PostgreSQL) serves many writers. No timer: an idle committer writes a lone item at once. If a group's
// transaction fails, each item is committed alone, so one bad item cannot take the others along; an item
// that fails alone rejects its own promise. Used for delivery outcomes and webhook attempt outcomes.
import type { Kysely } from 'kysely';
import type { Logger } from '../logger.js';
import type { Database } from './schema.js';

interface Pending<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

export interface GroupCommitOptions<T> {
  db: Kysely<Database>;
  /** Writes a group of items inside one transaction. */
  apply(trx: Kysely<Database>, items: T[]): Promise<void>;
  maxGroup?: number;
  logger?: Logger;
  /** Names the committer in the log line written when a group falls back to one-by-one commits. */
  name?: string;
  /** Called with the size of each group before it is written (the group-commit-size metric). */
  observe?: (size: number) => void;
}

export class GroupCommitter<T> {
  private queue: Pending<T>[] = [];
  private running = false;

  constructor(private readonly o: GroupCommitOptions<T>) {}

  /** Resolves once the item is committed. */
  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.loop());
      }
    });
  }

  private async loop(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commit(this.queue.splice(0, this.o.maxGroup ?? 256));
    } finally {
      this.running = false;
    }
  }

  private async commit(group: Pending<T>[]): Promise<void> {
    const { db, apply } = this.o;
    this.o.observe?.(group.length);
    try {
      await db.transaction().execute((trx) => apply(trx, group.map((p) => p.item)));
      for (const p of group) p.resolve();
    } catch (err) {
      if (group.length === 1) return group[0].reject(err);
      this.o.logger?.warn({ err, items: group.length }, `${this.o.name ?? 'group commit'}: group failed; committing one by one`);
      for (const p of group) {
        try {
          await db.transaction().execute((trx) => apply(trx, [p.item]));
          p.resolve();
        } catch (e) {
          p.reject(e);
        }
      }
    }
  }
}
