// The Bulk API (POST /email/bulk, GET /email/bulk/{id}; src/domain/bulk). A request is stored as
// ONE row of bulk_requests, its recipients as pages of bulk_pages (the page is the unit of expansion: one
// transaction turns one page into ordinary messages and marks it done) and its attachments ONCE in
// bulk_attachments, which every message of the request refers to through messages.bulk_id (the delivery
// loader reads their content there; it is dropped when the last message is handed off).
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('bulk_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    // Accepted | Processing | Completed | Failed
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('Accepted'))
    .addColumn('reason', 'text')
    // The Subject as given (a template's subject for TemplateId/TemplateAlias): GET answers it.
    .addColumn('subject', 'text', (c) => c.notNull())
    // JSON: the request-level fields every message is compiled from (attachments apart).
    .addColumn('content', 'text', (c) => c.notNull())
    // JSON [{Name, ContentType, ContentID, ContentLength}]: what every message lists.
    .addColumn('attachments', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('total_messages', 'integer', (c) => c.notNull())
    .addColumn('pages', 'integer', (c) => c.notNull())
    .addColumn('pages_done', 'integer', (c) => c.notNull().defaultTo(0))
    // Entries compiled into a message, skipped (every recipient inactive), failed (did not compile).
    .addColumn('compiled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('submitted_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('bulk_requests_status').on('bulk_requests').columns(['status', 'submitted_at']).execute();
  await db.schema
    .createTable('bulk_pages')
    .addColumn('bulk_id', 'text', (c) => c.notNull().references('bulk_requests.id').onDelete('cascade'))
    .addColumn('page', 'integer', (c) => c.notNull())
    // JSON array of the page's Messages entries, as validated at acceptance.
    .addColumn('entries', 'text', (c) => c.notNull())
    .addColumn('done_at', 'bigint')
    .addPrimaryKeyConstraint('bulk_pages_pk', ['bulk_id', 'page'])
    .execute();
  await db.schema
    .createTable('bulk_attachments')
    .addColumn('bulk_id', 'text', (c) => c.notNull().references('bulk_requests.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    // Base64; null once the request's last message is handed off.
    .addColumn('content', 'text')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_attachments_pk', ['bulk_id', 'position'])
    .execute();
  // On PostgreSQL messages is partitioned (0023): the column and the index reach every partition, and the
  // partitions made later by partitions-ahead inherit both.
  await db.schema.alterTable('messages').addColumn('bulk_id', 'text').execute();
  // Partial: only bulk messages are in it. Progress counts a request's messages still queued.
  await sql`create index messages_bulk on messages (bulk_id, status) where bulk_id is not null`.execute(db);
}
