// The one way the service builds a group commit (commit-batcher.ts): the caller gives what a group writes in
// its transaction, and the database's own policy does the rest, the same for every writer:
// - durability: on a SQLite file the group commits at NORMAL and is answered after an fdatasync of the WAL
//   off the event loop, with checkpoints on a thread (sqlite-durability.ts); elsewhere a plain transaction.
//   One Durability per database, shared by its writers: their syncs coalesce and one pacer counts every
//   commit toward the next checkpoint.
// - conflict retry: a transaction PostgreSQL aborted for a conflict with another (conflict-retry.ts) runs
//   again; a failed group says nothing about its items.
// - metrics: each group's weight in mailroom_group_commit_size, labelled with the writer's name.
// - side by side: `parallel` writers only where the database takes concurrent writers (row-locks.ts).
import type { Kysely } from 'kysely';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { CommitBatcher } from './commit-batcher.js';
import { withConflictRetry } from './conflict-retry.js';
import type { Db } from './database.js';
import { concurrentWriters } from './row-locks.js';
import type { Database } from './schema.js';
import { createDurability, sqliteFileOf, type Durability } from './sqlite-durability.js';

/** The parts of the process a group commit needs (AppContext has them all). */
export interface GroupCommitParts {
  database: Db;
  config: { databaseUrl: string };
  logger: Logger;
  metrics?: Pick<Metrics, 'groupCommitSize'>;
}

export interface GroupCommitOptions<T, R> {
  /** Names the writer in the log and in the metric's `committer` label. */
  name: string;
  /** Writes one group in the transaction given: one result per item, in order (nothing when R is void). */
  commit(trx: Kysely<Database>, items: T[]): Promise<R[] | void>;
  /** How much of a group an item takes (default 1); it is also the count the metric and the checkpoints see. */
  weight?(item: T): number;
  maxWeight?: number;
  /** An item whose commit failed alone is committed once more when this says so (a lost race). */
  retryAlone?(item: T, err: unknown): boolean;
  /** Called after each group is settled (answered, or failed over to one-by-one commits). */
  afterGroup?(): void;
  /** Groups written side by side where the database allows it, and the waiting weight that starts one more. */
  parallel?: { writers: number; from?: number };
}

export interface GroupCommit<T, R = void> {
  /** Resolves with the item's result once its group is committed and durable. */
  submit(item: T): Promise<R>;
  /** Resolves when every submitted item is committed and durable (graceful shutdown). */
  drain(): Promise<void>;
  /** drain(), then the sync's file released; a later submit opens it again. */
  close(): Promise<void>;
  /** Groups written and items they carried. */
  readonly stats: { transactions: number; requests: number };
}

const durabilities = new WeakMap<Db, Durability>();

function durabilityOf(database: Db, databaseUrl: string): Durability {
  let d = durabilities.get(database);
  if (!d) {
    d = createDurability(database, databaseUrl);
    durabilities.set(database, d);
  }
  return d;
}

export function createGroupCommit<T, R = void>(parts: GroupCommitParts, o: GroupCommitOptions<T, R>): GroupCommit<T, R> {
  const { database, logger, metrics } = parts;
  const durability = durabilityOf(database, parts.config.databaseUrl);
  const weightOf = (item: T) => o.weight?.(item) ?? 1;
  const batcher = new CommitBatcher<T, R>({
    name: o.name,
    logger,
    commit: async (items) => {
      const weight = items.reduce((n, item) => n + weightOf(item), 0);
      metrics?.groupCommitSize.observe({ committer: o.name }, weight);
      const results = await withConflictRetry(() => durability.transact((trx) => o.commit(trx, items), weight));
      return results ?? items.map(() => undefined as R);
    },
    // Only a SQLite file syncs after the commit; elsewhere the commit is durable when it returns, and the
    // writers may run side by side.
    sync: sqliteFileOf(database, parts.config.databaseUrl) !== null ? () => durability.flush() : undefined,
    weight: o.weight,
    maxWeight: o.maxWeight,
    retryAlone: o.retryAlone,
    afterGroup: o.afterGroup,
    parallel: o.parallel ? concurrentWriters(database.dialect, o.parallel.writers) : undefined,
    parallelFrom: o.parallel?.from,
  });
  return {
    submit: (item) => batcher.submit(item),
    drain: () => batcher.drain(),
    close: async () => {
      await batcher.drain();
      await durability.close();
    },
    get stats() {
      return batcher.stats;
    },
  };
}
