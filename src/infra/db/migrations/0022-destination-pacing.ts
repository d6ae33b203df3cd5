// Pacing state of destinations that throttled mailroom (421, 4.7.x): one row per destination while it is
// being slowed down, shared by every worker process (src/domain/delivery/pacing/store.ts). A destination
// that never throttled, or has recovered, has no row.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('destination_pace')
    .addColumn('destination', 'text', (c) => c.primaryKey())
    .addColumn('strikes', 'integer', (c) => c.notNull())
    .addColumn('paused_until', 'bigint', (c) => c.notNull())
    .addColumn('rate_per_minute', 'integer', (c) => c.notNull())
    .addColumn('ceiling_per_minute', 'integer', (c) => c.notNull())
    .addColumn('throttled_at', 'bigint', (c) => c.notNull())
    .addColumn('last_reply', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
