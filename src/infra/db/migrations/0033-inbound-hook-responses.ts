// Inbound in the console.
// - What the application answered to each POST of an inbound message: the first bytes of the response body,
//   whatever the status. A failed attempt's `error` alone would leave a 200 whose body says "ignored"
//   invisible to the operator.
// - Indexes for the console's Inbound list and Statistics (bench/console, bench/README.md): without them a
//   tag or MailboxHash matching nothing reads every row of the server (payload included) through
//   inbound_messages_server_time, and the inbound counts by day read every row too. Equality filters get
//   their own (server, value, time) order; the counts read (server, time, status) alone, never the rows.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('inbound_attempts').addColumn('response_excerpt', 'text').execute();
  await db.schema.createIndex('inbound_messages_server_tag').on('inbound_messages').columns(['server_id', 'tag', 'received_at']).execute();
  await db.schema.createIndex('inbound_messages_server_hash').on('inbound_messages').columns(['server_id', 'mailbox_hash', 'received_at']).execute();
  await db.schema.createIndex('inbound_messages_server_time_status').on('inbound_messages').columns(['server_id', 'received_at', 'status']).execute();
}
