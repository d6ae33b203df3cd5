// Writes that may be lost to a power failure without harm, run without waiting for the disk.
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Db } from './database.js';

const NORMAL = CompiledQuery.raw('pragma synchronous = NORMAL');
/** The level each SQLite database was opened with (db/database.ts sets it once; nothing else changes it for
 * longer than a transaction it holds the connection for), read on the first call: a claim runs often. */
const levels = new WeakMap<Db, { level: number; restore: CompiledQuery }>();

/**
 * Runs one statement (its own transaction) and returns its rows, without an fsync of its own where the
 * database would do one inside COMMIT on the event loop. For writes whose loss to a power failure only
 * redoes work, e.g. a job claim: lost, the job is simply claimed again (at-least-once, as when a worker
 * dies).
 *
 * SQLite runs COMMIT, and with synchronous=FULL its fsync, on the event loop: the statement runs with
 * synchronous=NORMAL, and the next FULL commit syncs the write-ahead log with this write in it, in order
 * (https://www.sqlite.org/pragma.html#pragma_synchronous). The connection is held throughout so no other
 * transaction commits with NORMAL meanwhile, and the setting found is put back (a database opened below
 * FULL stays so). PostgreSQL's COMMIT does not block the event loop: the statement runs as it is.
 */
export async function executeUnsynced<T>(database: Db, query: RawBuilder<T>): Promise<T[]> {
  const { db } = database;
  if (database.dialect === 'postgres') return (await query.execute(db)).rows;
  return db.connection().execute(async (conn) => {
    let known = levels.get(database);
    if (!known) {
      const level = Number(Object.values((await sql<Record<string, number>>`pragma synchronous`.execute(conn)).rows[0] ?? {})[0] ?? 2);
      known = { level, restore: CompiledQuery.raw(`pragma synchronous = ${level}`) };
      levels.set(database, known);
    }
    if (known.level <= 1) return (await query.execute(conn)).rows;
    await conn.executeQuery(NORMAL);
    try {
      return (await query.execute(conn)).rows;
    } finally {
      await conn.executeQuery(known.restore);
    }
  });
}
