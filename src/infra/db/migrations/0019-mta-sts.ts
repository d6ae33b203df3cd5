// MTA-STS policies (RFC 8461) cached per recipient domain, shared by every worker, kept until max_age runs
// out (src/domain/delivery/mta-sts/cache.ts).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('mta_sts_policies')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('mx', 'text', (c) => c.notNull())
    .addColumn('max_age', 'bigint', (c) => c.notNull())
    .addColumn('fetched_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}
