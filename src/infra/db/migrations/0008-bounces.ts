// Schema changes for bounces and complaints intake: indexes for the bounce API's filters and the
// record of reports already taken in, so that a report delivered twice (the sender never saw our 250, RFC
// 5321 6.1) is recorded once.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.createIndex('bounces_server_type_time').on('bounces').columns(['server_id', 'type', 'bounced_at']).execute();
  await db.schema.createIndex('bounces_server_stream_time').on('bounces').columns(['server_id', 'stream_id', 'bounced_at']).execute();
  await db.schema.createIndex('bounces_server_tag').on('bounces').columns(['server_id', 'tag']).execute();

  await db.schema
    .createTable('inbound_reports')
    // sha256 of the raw message and the envelope recipient it was accepted for.
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbound_reports_time').on('inbound_reports').columns(['received_at']).execute();
}
