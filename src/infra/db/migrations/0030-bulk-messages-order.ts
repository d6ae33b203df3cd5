// The console lists a bulk request's messages (src/domain/bulk/progress.ts) page by page in id order: with
// this index a page is a range read of 50 entries; with only messages_bulk (bulk_id, status) every page
// sorted all of the request's messages (100,000 for a newsletter). Partial: only bulk messages are in it.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await sql`create index messages_bulk_order on messages (bulk_id, id) where bulk_id is not null`.execute(db);
}
