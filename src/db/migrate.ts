import { type Migration as KyselyMigration, Migrator } from 'kysely/migration';
import type { Db } from './database.js';
import { migrations } from './migrations/index.js';

/** Brings the schema up to date. Safe to run from several processes: Kysely takes a lock around it. */
export async function migrateToLatest(database: Db): Promise<string[]> {
  const provider = {
    async getMigrations(): Promise<Record<string, KyselyMigration>> {
      const out: Record<string, KyselyMigration> = {};
      for (const [name, m] of Object.entries(migrations)) out[name] = { up: (db) => m.up(db, database.dialect) };
      return out;
    },
  };
  // The migration bookkeeping tables live in our schema (Kysely otherwise finds another schema's).
  const migrator = new Migrator({ db: database.db, provider, migrationTableSchema: database.schema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
