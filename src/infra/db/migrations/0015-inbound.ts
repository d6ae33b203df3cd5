// Schema changes for inbound processing: mail received for a server's inbound address, the block
// rules (POST /triggers/inboundRules) and every attempt to POST a message to the server's InboundHookUrl.
import type { Kysely } from 'kysely';
import { type MigrationDialect, withId } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('inbound_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    .addColumn('stream_id', 'text', (c) => c.notNull())
    // sha256 of the envelope recipient and the raw message: an SMTP client that never saw our 250 sends
    // the same message again (RFC 5321 6.1), and it is stored once.
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text', (c) => c.notNull())
    // Lowercased To, Cc and envelope recipient addresses, space separated, for the recipient filter.
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('original_recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('mailbox_hash', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    // Queued | Scheduled (waiting for a retry) | Processed | Failed | Blocked
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('blocked_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('spam_score', 'real')
    // The JSON posted to the application; attachment content and RawEmail are dropped once it has it.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('processed_at', 'bigint')
    .execute();
  await db.schema.createIndex('inbound_messages_digest').on('inbound_messages').columns(['server_id', 'digest']).unique().execute();
  await db.schema.createIndex('inbound_messages_server_time').on('inbound_messages').columns(['server_id', 'received_at']).execute();

  // The listener finds the server of each recipient at RCPT time.
  await db.schema.createIndex('servers_inbound_hash').on('servers').columns(['inbound_hash']).execute();
  await db.schema.createIndex('servers_inbound_domain').on('servers').columns(['inbound_domain']).execute();

  await withId(db.schema.createTable('inbound_rules'), d)
    .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
    // A lowercased address or domain.
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbound_rules_server_rule').on('inbound_rules').columns(['server_id', 'rule']).unique().execute();

  await withId(db.schema.createTable('inbound_attempts'), d, 'bigint')
    .addColumn('inbound_id', 'text', (c) => c.notNull().references('inbound_messages.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    // delivered | retrying | failed
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbound_attempts_message').on('inbound_attempts').columns(['inbound_id']).execute();
}
