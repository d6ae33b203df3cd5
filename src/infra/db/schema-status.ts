import { sql } from 'kysely';
import type { Db } from './database.js';
import { migrations } from './migrations/index.js';

/** Migrations this code knows that the database has not applied (empty: the schema is current). Throws when unreachable. */
export async function pendingMigrations(database: Db): Promise<string[]> {
  const done = new Set((await sql<{ name: string }>`select name from mailroom_migration`.execute(database.db)).rows.map((r) => r.name));
  return Object.keys(migrations).filter((n) => !done.has(n));
}
