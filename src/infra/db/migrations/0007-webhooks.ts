// Schema changes for webhooks, their notifications (one per webhook and event, the unit of at-least-once
// delivery) and every delivery attempt (GET /webhooks/{id}/deliveries).
import type { Kysely } from 'kysely';
import { type MigrationDialect, withId } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await withId(db.schema.createTable('webhooks'), d)
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('triggers', 'text', (c) => c.notNull())
    .addColumn('http_auth_user', 'text', (c) => c.notNull().defaultTo(''))
    // Sealed (AES-256-GCM) when set, '' otherwise.
    .addColumn('http_auth_password', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('headers', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('signing_secret', 'text', (c) => c.notNull())
    // After a rotation the old secret still signs (a second signature) until this time, so receivers can
    // switch over without dropping requests.
    .addColumn('previous_signing_secret', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhooks_server_stream').on('webhooks').columns(['server_id', 'stream_id']).execute();

  await withId(db.schema.createTable('webhook_notifications'), d, 'bigint')
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('server_id', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('record_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_notifications_webhook').on('webhook_notifications').columns(['webhook_id', 'id']).execute();

  await withId(db.schema.createTable('webhook_attempts'), d, 'bigint')
    .addColumn('notification_id', 'bigint', (c) => c.notNull().references('webhook_notifications.id').onDelete('cascade'))
    .addColumn('webhook_id', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    /** delivered | retrying | failed */
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_webhook').on('webhook_attempts').columns(['webhook_id', 'id']).execute();
  await db.schema.createIndex('webhook_attempts_notification').on('webhook_attempts').columns(['notification_id']).execute();
}
