import { type Kysely, sql } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/**
 * Runs `fn` in a transaction that no other process runs at the same time for the same `name`: the way
 * several processes started together on one database decide who migrates and who creates the first
 * account, instead of each checking and then inserting.
 *
 * PostgreSQL: a transaction-scoped advisory lock keyed by the schema and the name (released by the commit
 * or the rollback, also when the process dies). SQLite: `BEGIN IMMEDIATE` takes the database's write lock
 * before anything is read; a plain (deferred) BEGIN would let two readers both see "nothing there yet" and
 * then fail to upgrade. Other processes wait (busy_timeout) instead of failing.
 */
export async function exclusiveTransaction<T>(database: Db, name: string, fn: (conn: Kysely<Database>) => Promise<T>): Promise<T> {
  return database.db.connection().execute(async (conn) => {
    if (database.dialect === 'postgres') {
      await sql`begin`.execute(conn);
      await sql`select pg_advisory_xact_lock(hashtext(${`mailroom.${name}.${database.schema ?? 'public'}`}))`.execute(conn);
    } else {
      await sql`begin immediate`.execute(conn);
    }
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}
