// Mailpit's Size of a message (domain/mailpit/size.ts): the bytes of its source plus its attachments'. Composing
// a message's MIME to measure it takes seconds for a 10 MB message, too long for the event loop on every
// list page, so the size is computed once, off the loop, and kept here. Null until then: rows stored before
// this migration and messages not listed yet; filled as lists reach them, no backfill pass over the table.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('messages').addColumn('size', 'bigint').execute();
}
