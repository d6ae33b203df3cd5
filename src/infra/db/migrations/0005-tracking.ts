// Schema changes for messages and tracking: the stored first open per (message, recipient) and the
// stored click per (message, recipient, link), with the indexes their searches use. Both disappear with
// their message (retention, docs/reference/api-conventions.md, "General rules" 3) through ON DELETE CASCADE.
import { sql, type Kysely } from 'kysely';
import { type MigrationDialect, withId } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  for (const table of ['opens', 'clicks'] as const) {
    let t = withId(db.schema.createTable(table), d, 'bigint')
      .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
      .addColumn('server_id', 'integer', (c) => c.notNull())
      .addColumn('stream_id', 'text', (c) => c.notNull())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('tag', 'text')
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .addColumn('user_agent', 'text', (c) => c.notNull())
      .addColumn('client_name', 'text', (c) => c.notNull())
      .addColumn('client_company', 'text', (c) => c.notNull())
      .addColumn('client_family', 'text', (c) => c.notNull())
      .addColumn('os_name', 'text', (c) => c.notNull())
      .addColumn('os_company', 'text', (c) => c.notNull())
      .addColumn('os_family', 'text', (c) => c.notNull())
      .addColumn('platform', 'text', (c) => c.notNull());
    if (table === 'clicks') {
      t = t
        .addColumn('original_link', 'text', (c) => c.notNull())
        // SHA-256 of the link: the uniqueness key, since a btree cannot index arbitrarily long text.
        .addColumn('link_hash', 'text', (c) => c.notNull())
        .addColumn('click_location', 'text', (c) => c.notNull());
    }
    await t.execute();
    const uniqueCols = table === 'clicks' ? ['message_id', 'recipient', 'link_hash'] : ['message_id', 'recipient'];
    await db.schema.createIndex(`${table}_unique`).unique().on(table).columns(uniqueCols).execute();
    await db.schema.createIndex(`${table}_stream_time`).on(table).columns(['server_id', 'stream_id', 'occurred_at']).execute();
    await sql`create index ${sql.id(`${table}_recipient_time`)} on ${sql.table(table)} (server_id, stream_id, lower(recipient), occurred_at)`.execute(db);
    await db.schema.createIndex(`${table}_tag_time`).on(table).columns(['server_id', 'stream_id', 'tag', 'occurred_at']).execute();
  }
  // Recipients are stored with the local part as given (sending keeps what the user wrote), but searching by
  // recipient must not depend on case: an expression index serves lower(email) = <normalized address>. It
  // ends with message_id so that a page of a recipient's messages is read from the index alone, in order.
  await sql`create index recipients_search_lower on message_recipients (server_id, stream_id, lower(email), received_at, message_id)`.execute(db);
  // Searches list newest first with the id as tie-breaker (a batch shares one received_at), so that pages
  // are stable. With the id in the time indexes both dialects read a page, however deep, from the index in
  // order, and skip the offset rows without visiting the table; without it every skipped row costs a table
  // lookup and a sort. The four indexes of 0001 are replaced, so sending maintains no extra index.
  for (const [name, cols] of [
    ['messages_stream_time', ['server_id', 'stream_id', 'received_at', 'id']],
    ['messages_tag_time', ['server_id', 'stream_id', 'tag', 'received_at', 'id']],
    ['messages_from_time', ['server_id', 'stream_id', 'from_email', 'received_at', 'id']],
    ['messages_status_time', ['server_id', 'stream_id', 'status', 'received_at', 'id']],
  ] as const) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on('messages').columns([...cols]).execute();
  }
  // The status filter 'bounced' looks for messages with a bounced recipient: few rows, so a partial index
  // costs the sending path nothing for the vast majority that never bounce.
  await sql`create index recipients_bounced on message_recipients (server_id, stream_id, received_at, message_id) where status = 'Bounced'`.execute(db);
}
