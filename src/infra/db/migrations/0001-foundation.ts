// The whole initial data model. Timestamps are epoch milliseconds (bigint), flags are 0/1 integers and JSON
// is text, so that both dialects store and return the same values.
import type { Kysely } from 'kysely';
import { type MigrationDialect, withId } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await withId(db.schema.createTable('accounts'), d)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('servers'), d)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull().defaultTo('Purple'))
    .addColumn('delivery_type', 'text', (c) => c.notNull().defaultTo('Live'))
    .addColumn('smtp_api_activated', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('raw_email_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('inbound_hook_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('bounce_hook_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('open_hook_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('delivery_hook_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('click_hook_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('post_first_open_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('inbound_domain', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('inbound_hash', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('inbound_spam_threshold', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('track_links', 'text', (c) => c.notNull().defaultTo('None'))
    .addColumn('include_bounce_content_in_hook', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enable_smtp_api_error_hooks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retention_days', 'integer', (c) => c.notNull().defaultTo(45))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('servers_account_name').unique().on('servers').columns(['account_id', 'name']).execute();

  await withId(db.schema.createTable('api_tokens'), d)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('server_id', 'integer', (c) => c.references('servers.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('message_streams')
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .addColumn('archived_at', 'bigint')
    .addColumn('expected_purge_at', 'bigint')
    .addPrimaryKeyConstraint('message_streams_pk', ['server_id', 'id'])
    .execute();

  await withId(db.schema.createTable('jobs'), d, 'bigint')
    .addColumn('queue', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('group_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['queue', 'run_at']).execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_raw', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('tag', 'text')
    .addColumn('html_body', 'text')
    .addColumn('text_body', 'text')
    .addColumn('reply_to', 'text')
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('track_opens', 'integer', (c) => c.notNull())
    .addColumn('track_links', 'text', (c) => c.notNull())
    .addColumn('attachments', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('mime', 'text')
    .execute();
  await db.schema.createIndex('messages_stream_time').on('messages').columns(['server_id', 'stream_id', 'received_at']).execute();
  await db.schema.createIndex('messages_tag_time').on('messages').columns(['server_id', 'stream_id', 'tag', 'received_at']).execute();
  await db.schema.createIndex('messages_from_time').on('messages').columns(['server_id', 'stream_id', 'from_email', 'received_at']).execute();
  await db.schema.createIndex('messages_status_time').on('messages').columns(['server_id', 'stream_id', 'status', 'received_at']).execute();
  await db.schema.createIndex('messages_retention').on('messages').columns(['server_id', 'received_at']).execute();

  await withId(db.schema.createTable('message_recipients'), d, 'bigint')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('server_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('settled_at', 'bigint')
    .execute();
  await db.schema.createIndex('recipients_message').on('message_recipients').columns(['message_id']).execute();
  await db.schema
    .createIndex('recipients_search')
    .on('message_recipients')
    .columns(['server_id', 'stream_id', 'email', 'received_at'])
    .execute();

  await db.schema
    .createTable('message_attachments')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('content', 'text')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('message_attachments_pk', ['message_id', 'position'])
    .execute();

  await withId(db.schema.createTable('message_events'), d, 'bigint')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('server_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_message').on('message_events').columns(['message_id', 'occurred_at']).execute();

  await withId(db.schema.createTable('suppressions'), d)
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('suppressions_unique')
    .unique()
    .on('suppressions')
    .columns(['server_id', 'stream_id', 'email'])
    .execute();

  await withId(db.schema.createTable('domains'), d)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('spf_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('dkim_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('dkim_update_status', 'text')
    .addColumn('return_path_domain', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('return_path_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('domains_account_name').unique().on('domains').columns(['account_id', 'name']).execute();

  await withId(db.schema.createTable('dkim_keys'), d)
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('selector', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('bits', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('activated_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('dkim_keys_domain').on('dkim_keys').columns(['domain_id', 'state']).execute();

  await withId(db.schema.createTable('sender_signatures'), d)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('confirmed_at', 'bigint')
    .addColumn('confirmation_personal_note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('return_path_domain', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('return_path_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spf_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sender_signatures_account_email')
    .unique()
    .on('sender_signatures')
    .columns(['account_id', 'email'])
    .execute();

  await withId(db.schema.createTable('bounces'), d)
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('type_code', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('tag', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('bounced_at', 'bigint', (c) => c.notNull())
    .addColumn('inactive', 'integer', (c) => c.notNull())
    .addColumn('can_activate', 'integer', (c) => c.notNull())
    .addColumn('dump', 'text')
    .addColumn('content', 'text')
    .execute();
  await db.schema.createIndex('bounces_server_time').on('bounces').columns(['server_id', 'bounced_at']).execute();
  await db.schema.createIndex('bounces_email').on('bounces').columns(['server_id', 'email']).execute();
  await db.schema.createIndex('bounces_message').on('bounces').columns(['message_id']).execute();
}
