// How the two databases' query executors differ where the choice of a query's shape depends on it.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './dialect-tag.js';
import { dialectOf } from './util.js';

/**
 * Whether an index scan reads the table row of every index entry it passes, the rows skipped by OFFSET
 * included. PostgreSQL: yes (an Index Scan fetches the heap tuple before OFFSET discards it), so a deep
 * page is better cut as ids by an index-only scan first, then only those rows fetched. SQLite: no (it
 * skips offset rows in the index, and a second lookup by its text primary key would cost more).
 */
export function readsRowsSkippedByOffset(dialect: Dialect): boolean {
  return dialect === 'postgres';
}

/**
 * Whether a filter on messages should be given the matching ids as values rather than joined: the message
 * tables are day partitions on PostgreSQL (migration 0023), and a list of ids is pruned to its partitions
 * when the statement is planned, where a join made the planner hash-join every partition's rows (60-78 ms
 * against 4 ms at 1,000,000 messages, messages/search-recipient-first.ts). SQLite has no partitions and
 * keeps the join (a nested loop from the recipients index).
 */
export function filtersMessagesByIdList(dialect: Dialect): boolean {
  return dialect === 'postgres';
}

/**
 * Hot statements that look rows up by a list of keys (`message_id in (...)` of a batch of messages) must use
 * their index whatever the table statistics say. PostgreSQL estimates such a list from
 * statistics: never analyzed, each value is assumed to match 0.5% of the table, so 64 ids "match" a quarter
 * of message_recipients and a sequential scan wins; analyzed while a burst sat unsettled, the same happens.
 * No query shape was robust (a join from the messages' primary key was planned as a merge join over a full
 * scan too), and PostgreSQL has no per-statement hint, so these statements run with `enable_seqscan = off`
 * for their transaction only (SET LOCAL): a table scan is then only chosen where no index can answer, which
 * is exactly the guarantee wanted. SQLite plans without statistics unless ANALYZE wrote some (mailroom never
 * runs it), so nothing changes there. test/infra/db/hot-queries.test.ts proves the plans on never-analyzed
 * and stale tables.
 */
export async function planByIndexes(trx: Kysely<any>): Promise<void> {
  if (dialectOf(trx) !== 'postgres') return;
  await sql`set local enable_seqscan = off`.execute(trx);
}

/** Runs `run` with planByIndexes: inside the given transaction, or in a transaction of its own. */
export async function withIndexPlans<T>(db: Kysely<Database>, run: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return run(db);
  if (db.isTransaction) {
    await planByIndexes(db);
    return run(db);
  }
  return db.transaction().execute(async (trx) => {
    await planByIndexes(trx);
    return run(trx);
  });
}
