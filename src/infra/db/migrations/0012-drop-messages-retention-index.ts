// messages_retention (0001) indexed messages by (server_id, received_at) for the retention purge only. Every
// accepted message paid one more B-tree insert for it (one of six on the messages table). The purge now
// walks a server's messages stream by stream through messages_stream_time (server_id, stream_id,
// received_at, id), which search needs anyway (src/domain/retention/purge.ts).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.dropIndex('messages_retention').ifExists().execute();
}
