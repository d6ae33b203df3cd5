// One row per running worker process, refreshed every few seconds: /readyz checks the process's own beat,
// `mailroom status` lists the workers alive and those that stopped beating (killed, hung).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('worker_heartbeats')
    .addColumn('worker_id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('beat_at', 'bigint', (c) => c.notNull())
    .execute();
}
