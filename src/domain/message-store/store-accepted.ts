// Inserts accepted messages' rows: the message, one row per recipient and per Metadata field, and the
// attachments, as SQL text without the builder (the sending path stores thousands of rows a second:
// infra/db/raw-insert.ts). accepting/store.ts builds the rows in these columns' order; the caller owns the
// transaction.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { SqlDialect } from '../../infra/db/sql-dialect.js';

export const MESSAGE_COLUMNS = [
  'id', 'server_id', 'stream_id', 'from_email', 'from_raw', 'subject', 'tag', 'html_body', 'text_body', 'reply_to', 'headers',
  'metadata', 'track_opens', 'track_links', 'attachments', 'status', 'sandbox', 'received_at', 'mime', 'bulk_id',
] as const;
export const RECIPIENT_COLUMNS = ['message_id', 'server_id', 'stream_id', 'kind', 'email', 'name', 'status', 'received_at', 'settled_at'] as const;
export const ATTACHMENT_COLUMNS = ['message_id', 'position', 'name', 'content_type', 'content_id', 'content', 'size'] as const;
/** One row per Metadata field: the index GET /messages' metadata_<key>=<value> reads (migration 0039). */
export const METADATA_COLUMNS = ['message_id', 'key', 'server_id', 'stream_id', 'value', 'received_at'] as const;

/** Rows in the order of the columns above. */
export interface AcceptedRows {
  messages: unknown[][];
  recipients: unknown[][];
  metadata: unknown[][];
  attachments: unknown[][];
}

export async function insertAcceptedRows(trx: Kysely<Database>, sql: SqlDialect, rows: AcceptedRows): Promise<void> {
  await sql.insertRows(trx, 'messages', MESSAGE_COLUMNS, rows.messages);
  await sql.insertRows(trx, 'message_recipients', RECIPIENT_COLUMNS, rows.recipients);
  await sql.insertRows(trx, 'message_metadata', METADATA_COLUMNS, rows.metadata);
  // Attachments are large: a few per statement keeps one statement's text and parameters bounded.
  for (let i = 0; i < rows.attachments.length; i += 20) await sql.insertRows(trx, 'message_attachments', ATTACHMENT_COLUMNS, rows.attachments.slice(i, i + 20));
}
