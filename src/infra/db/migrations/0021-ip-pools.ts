// IP pools (MAILROOM_IP_POOLS): the pool a server's mail leaves from, and a stream's, which overrides its
// server's. A name, not a key: the pools live in the setting, not in the database. Null: no pool.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('servers').addColumn('ip_pool', 'text').execute();
  await db.schema.alterTable('message_streams').addColumn('ip_pool', 'text').execute();
}
