// data_removals: one row per POST /data-removals, the status of a background removal of every
// trace of an address across an account (src/domain/data-removals). The legacy hook URL columns of servers
// are emptied: since this migration the hook fields are a view of the default stream's webhooks, and values
// stored before were never called by anything (and had skipped the webhook address guard).
import type { Kysely } from 'kysely';
import { withId, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await withId(db.schema.createTable('data_removals'), d)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('requested_for', 'text', (c) => c.notNull())
    .addColumn('notify_when_completed', 'integer', (c) => c.notNull().defaultTo(0))
    // Pending | Done
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('Pending'))
    // The step last finished (messages, bounces, notifications, idempotency, done): progress for operators.
    .addColumn('step', 'text', (c) => c.notNull().defaultTo(''))
    // JSON {messages, bounces, notifications, idempotencyKeys}: rows removed so far.
    .addColumn('removed', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('data_removals_account').on('data_removals').columns(['account_id', 'id']).execute();
  await db
    .updateTable('servers')
    .set({ bounce_hook_url: '', open_hook_url: '', delivery_hook_url: '', click_hook_url: '', inbound_hook_url: '' })
    .execute();
}
