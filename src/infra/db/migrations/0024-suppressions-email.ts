// The accepting path's suppression check looks recipients up by address alone (domain/accepting/checks.ts),
// so that no table statistics can steer it to another index: by server and stream, a never-analyzed
// PostgreSQL takes `suppressions_stream_time` for as cheap as the unique index and reads the stream's whole
// list (test/infra/db/hot-queries.test.ts).
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  await db.schema.createIndex('suppressions_email').on('suppressions').column('email').execute();
}
