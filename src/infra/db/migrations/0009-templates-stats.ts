// Schema changes for templates and the permanent daily statistics counters.
import type { Kysely } from 'kysely';
import { type MigrationDialect, withId } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await withId(db.schema.createTable('templates'), d)
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('alias', 'text')
    // Aliases are matched case-insensitively; this column holds the lowercased alias for the unique index.
    .addColumn('alias_key', 'text')
    .addColumn('subject', 'text')
    .addColumn('html_body', 'text')
    .addColumn('text_body', 'text')
    .addColumn('template_type', 'text', (c) => c.notNull())
    .addColumn('layout_template', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('templates_alias').unique().on('templates').columns(['server_id', 'alias_key']).execute();
  await db.schema.createIndex('templates_type').on('templates').columns(['server_id', 'template_type', 'id']).execute();
  await db.schema.createIndex('templates_layout').on('templates').columns(['server_id', 'layout_template']).execute();

  // One counter per server, stream, tag ('' for none), Moscow day, metric and shard. Shards spread the
  // row locks of concurrent sending transactions on PostgreSQL; readers sum them.
  await db.schema
    .createTable('stats_daily')
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_daily_pk', ['server_id', 'day', 'metric', 'stream_id', 'tag', 'shard'])
    .execute();
}
