import { chmodSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * A consistent copy of a SQLite database while the service runs: VACUUM INTO reads one snapshot (a read
 * transaction, so writers carry on in the write-ahead log) and writes a compact, self-contained file
 * (https://sqlite.org/lang_vacuum.html#vacuuminto). PostgreSQL is backed up with pg_dump (docs/operations.md).
 */
export async function backupSqlite(database: Db, file: string): Promise<void> {
  if (database.dialect !== 'sqlite') throw new Error('mailroom backup copies SQLite databases; for PostgreSQL use pg_dump (docs/operations.md, "Backup and restore")');
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`${target} exists; choose a new file name`);
  await sql`vacuum into ${target}`.execute(database.db);
  // The copy holds message bodies like the original: owner-only.
  chmodSync(target, 0o600);
}
