// A Tag may be 1000 characters (docs/reference/api-conventions.md, "Limits"): up to ~3 KB of UTF-8, more than a
// PostgreSQL b-tree entry may hold (~2.7 KB) when the text does not compress, so such a send failed in the
// index. On PostgreSQL each tag index is split in two partial indexes: tags up to 2000 bytes keep the plain
// index (index-only scans, as fast as before), longer ones are indexed by md5(tag). db/util.ts tagEquals picks
// the matching form by the length of the searched value. SQLite has no entry size limit and keeps its plain
// indexes.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const SPLIT = [
  { index: 'messages_tag_time', table: 'messages', before: 'server_id, stream_id', after: 'received_at, id' },
  { index: 'opens_tag_time', table: 'opens', before: 'server_id, stream_id', after: 'occurred_at' },
  { index: 'clicks_tag_time', table: 'clicks', before: 'server_id, stream_id', after: 'occurred_at' },
  { index: 'bounces_server_tag', table: 'bounces', before: 'server_id', after: '' },
];

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  if (d !== 'postgres') return;
  for (const s of SPLIT) {
    const tail = s.after ? `, ${s.after}` : '';
    await sql.raw(`drop index ${s.index}`).execute(db);
    await sql.raw(`create index ${s.index} on ${s.table} (${s.before}, tag${tail}) where octet_length(tag) <= 2000`).execute(db);
    await sql.raw(`create index ${s.index}_long on ${s.table} (${s.before}, md5(tag)${tail}) where octet_length(tag) > 2000`).execute(db);
  }
}
