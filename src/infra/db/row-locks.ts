// Serializing writers, which the two databases need differently. SQLite has one writer at a time (one
// connection per process, and the file's write lock across processes): a transaction that writes already
// excludes every other writer, so no row lock is needed or possible. PostgreSQL runs transactions side by
// side and needs explicit row locks (https://www.postgresql.org/docs/current/explicit-locking.html).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect-tag.js';
import type { Database } from './schema.js';

/**
 * Locks the rows of `table` with these primary keys until the transaction ends, taken in key order so that
 * two transactions locking overlapping sets cannot deadlock. PostgreSQL: SELECT ... ORDER BY id FOR
 * UPDATE, in statements of 500 keys. SQLite: nothing (the transaction is the only writer).
 */
export async function lockRowsForUpdate(
  trx: Kysely<Database>,
  dialect: Dialect,
  table: 'messages' | 'servers' | 'console_users',
  ids: ReadonlyArray<string | number>,
): Promise<void> {
  if (dialect !== 'postgres' || ids.length === 0) return;
  const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < sorted.length; i += 500) {
    await sql`select id from ${sql.table(table)} where id in (${sql.join(sorted.slice(i, i + 500))}) order by id for update`.execute(trx);
  }
}

/**
 * The clause that lets several workers claim queue rows side by side: PostgreSQL's FOR UPDATE SKIP LOCKED
 * passes over rows another transaction holds instead of waiting for them. SQLite: empty (its single writer
 * makes the claiming UPDATE atomic by itself).
 */
export function skipLockedClause(dialect: Dialect): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql` for update skip locked` : sql``;
}

/**
 * Into how many rows a hot counter (a day's Sent count) is split. PostgreSQL: 8, so that concurrent
 * transactions rarely wait on one another's row lock for the same counter; readers sum the shards.
 * SQLite: 1, as its transactions never run side by side.
 */
export function counterShards(dialect: Dialect): number {
  return dialect === 'postgres' ? 8 : 1;
}

/**
 * How many write transactions of one process may run side by side: PostgreSQL takes them at once (row
 * locks, the counters above split in shards and locked in a fixed order); SQLite has one writer, so a second
 * transaction would only wait for the first's lock.
 */
export function concurrentWriters(dialect: Dialect, wanted: number): number {
  return dialect === 'postgres' ? wanted : 1;
}
