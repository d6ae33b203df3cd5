// One row per periodic task (retention, purges, DNS re-checks): when it is next due. Workers claim a run
// with a conditional update, so a task runs once per period across all worker processes instead of once in
// each of them (src/infra/jobs/periodic-claim.ts).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('periodic_tasks')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('next_run_at', 'bigint', (c) => c.notNull())
    .addColumn('last_started_at', 'bigint')
    .execute();
}
