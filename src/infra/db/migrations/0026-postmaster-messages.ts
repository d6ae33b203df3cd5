// Mail for postmaster (RFC 5321 4.5.1: every SMTP server that delivers mail takes it, the local part
// case-insensitive), kept for the operator, who reads it with `mailroom postmaster`.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('postmaster_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // sha256 of the raw message: a sender that never saw our 250 sends it again, and it is kept once.
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('remote_ip', 'text', (c) => c.notNull())
    .addColumn('mail_from', 'text', (c) => c.notNull())
    // The envelope recipients naming postmaster, as given, space separated.
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('from_header', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    // The message as received (UTF-8, NUL removed: PostgreSQL text cannot hold it).
    .addColumn('message', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('postmaster_messages_time').on('postmaster_messages').columns(['received_at']).execute();
}
