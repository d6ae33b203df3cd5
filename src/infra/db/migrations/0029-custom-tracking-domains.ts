// Custom tracking domains: a domain may name a host under it (links.example.com) whose CNAME
// points at mailroom's public host; once verified, the open pixels, click links and unsubscribe links of
// mail from the domain use it. The index serves the HTTP edge's look-up of verified hosts (by Host header)
// and the TLS terminator's on-demand question (GET /tls/ask).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('domains').addColumn('custom_tracking_domain', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('domains').addColumn('custom_tracking_verified', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('domains').addColumn('custom_tracking_checked_at', 'bigint').execute();
  await db.schema.createIndex('domains_custom_tracking').on('domains').columns(['custom_tracking_domain', 'custom_tracking_verified']).execute();
}
