// The distinct tags of one server's messages, read from the tag indexes by a loose index scan (one index
// descent per distinct tag, whatever the number of messages): a recursive query that asks for the smallest
// tag greater than the last one. Mailpit's API lists a server's tags with every page (domain/mailpit), and a
// plain DISTINCT read every message of the server (100,000 table rows in bench:mailpit).
// SQLite: messages_tag_time (server_id, stream_id, tag, ...) holds every tag. PostgreSQL: that index holds
// tags up to 2000 bytes (migration 0010), so the scan names its condition, and the rare longer tags come
// from messages_tag_time_long.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from './util.js';

export async function distinctTags(db: Kysely<any>, serverId: number, streamIds: string[]): Promise<string[]> {
  const pg = dialectOf(db) === 'postgres';
  const short = pg ? sql`and octet_length(tag) <= 2000` : sql``;
  const out = new Set<string>();
  for (const stream of streamIds) {
    const r = await sql<{ tag: string }>`
      with recursive t(tag) as (
        select (select min(tag) from messages where server_id = ${serverId} and stream_id = ${stream} and tag is not null ${short})
        union all
        select (select min(tag) from messages where server_id = ${serverId} and stream_id = ${stream} and tag > t.tag ${short}) from t where t.tag is not null
      )
      select tag from t where tag is not null`.execute(db);
    for (const row of r.rows) out.add(row.tag);
  }
  if (pg) {
    const long = await sql<{ tag: string }>`select distinct tag from messages where server_id = ${serverId} and octet_length(tag) > 2000`.execute(db);
    for (const row of long.rows) out.add(row.tag);
  }
  return [...out];
}
