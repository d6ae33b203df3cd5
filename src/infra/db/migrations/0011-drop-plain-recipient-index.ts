// recipients_search (0001) indexed message_recipients by (server_id, stream_id, email, received_at) with the
// address as stored (local part in the user's case). Since 0005 every recipient search goes through
// recipients_search_lower (lower(email)), and no query filters on the plain column: the old index only cost
// the sending path one more B-tree insert per recipient, keyed by address, i.e. on a random page, which is
// one more 4 KiB page written to the WAL per recipient in each group commit (bench/README.md, bench/send).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.dropIndex('recipients_search').ifExists().execute();
}
