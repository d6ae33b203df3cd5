import { sql } from 'kysely';
import type { Db } from './database.js';
import { exclusiveTransaction } from './exclusive.js';
import { migrations } from './migrations/index.js';

const TABLE = 'mailroom_migration';

/**
 * Brings the schema up to date, all pending migrations in one transaction, so a crash mid-way leaves the
 * database as it was (both SQLite and PostgreSQL have transactional DDL).
 *
 * Safe to run from several processes at once: `exclusiveTransaction` serializes them (an advisory lock on
 * PostgreSQL, `BEGIN IMMEDIATE` on SQLite).
 *
 * Why not Kysely's Migrator: it checks for its bookkeeping table by introspecting every table of every
 * schema in the database, and that introspection fails ("schema ... does not exist") when another schema is
 * dropped while it runs. Looking only at our own table, in our own schema, has no such race.
 */
export async function migrateToLatest(database: Db): Promise<string[]> {
  const { dialect } = database;
  return exclusiveTransaction(database, 'migrate', async (conn) => {
    await conn.schema
      .createTable(TABLE)
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'bigint', (c) => c.notNull())
      .execute();
    const done = new Set(
      (await sql<{ name: string }>`select name from ${sql.table(TABLE)}`.execute(conn)).rows.map((r) => r.name),
    );
    const names = Object.keys(migrations).sort();
    const unknown = [...done].filter((n) => !(n in migrations));
    if (unknown.length) {
      // A newer mailroom migrated this database; running an older one against it would corrupt data.
      throw new Error(`the database was migrated by a newer mailroom (unknown migrations: ${unknown.join(', ')})`);
    }
    const ran: string[] = [];
    for (const name of names) {
      if (done.has(name)) continue;
      await migrations[name]!.up(conn, dialect);
      await sql`insert into ${sql.table(TABLE)} (name, applied_at) values (${name}, ${Date.now()})`.execute(conn);
      ran.push(name);
    }
    return ran;
  });
}
