// Indexes for two searches that read every message of a server before.
//
// GET /messages/outbound?metadata_<key>=<value>: a message's Metadata is JSON text (0001), which no index of
// either database serves for any key. message_metadata holds one row per field (key, value as given, keys
// case-sensitive) beside the message's server, stream and time, written with the message in the same
// transaction (domain/accepting/store.ts); its index (server_id, stream_id, key, value, received_at,
// message_id) gives a key/value's messages newest first, as the search pages them. A side table rather than
// PostgreSQL's GIN over the jsonb: GIN answers containment but not the order, so a common value was a sort
// of all its messages, and SQLite has no index of any key at all; one table serves both the same way.
// PostgreSQL: RANGE-partitioned by message_id like the other children of messages (0023, 0031): a day
// partition per day that messages has (made here), the days ahead by the partitions-ahead task
// (infra/db/partitions.ts lists the table), dropped with the day by retention, deleted with its message by
// deleteMessagesCascading. SQLite: a foreign key cascades. Existing messages are backfilled here.
//
// Mailpit's `tag:` term matches the message's Tag case-insensitively (domain/mailpit/filters.ts), which the
// tag indexes of 0001/0010 (exact, per stream) do not serve: messages_sandbox_tag gives a Sandbox server's
// messages of one folded tag newest first. PostgreSQL indexes md5(lower(tag)): a Tag may be 1000 characters,
// past a b-tree entry's size (0010); SQLite has no such limit and indexes lower(tag) itself.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const DAY = 86_400_000;
const bound = (ms: number) => {
  const h = Math.floor(ms).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
};

async function postgres(db: Kysely<any>): Promise<void> {
  await sql`create table message_metadata (
    message_id text not null,
    key text not null,
    server_id integer not null,
    stream_id text not null,
    value text not null,
    received_at bigint not null,
    primary key (message_id, key)
  ) partition by range (message_id)`.execute(db);
  await sql`create table message_metadata_default partition of message_metadata default`.execute(db);
  const days = await sql<{ child: string }>`
    select c.relname as child from pg_inherits i join pg_class p on p.oid = i.inhparent join pg_class c on c.oid = i.inhrelid
     where p.relnamespace = current_schema()::regnamespace and p.relname = 'messages'`.execute(db);
  for (const { child } of days.rows) {
    const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(child);
    if (!m) continue;
    const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    await sql`create table ${sql.id(`message_metadata_p${m[1]}${m[2]}${m[3]}`)} partition of message_metadata for values from (${sql.lit(bound(day))}) to (${sql.lit(bound(day + DAY))})`.execute(db);
  }
  // Only string values: Metadata is validated as an object of strings (domain/accepting/validate.ts).
  await sql`insert into message_metadata (message_id, key, server_id, stream_id, value, received_at)
    select m.id, e.key, m.server_id, m.stream_id, e.value #>> '{}', m.received_at
      from messages m cross join lateral jsonb_each(case when jsonb_typeof(m.metadata::jsonb) = 'object' then m.metadata::jsonb else '{}'::jsonb end) e
     where m.metadata is not null and m.metadata <> '{}' and jsonb_typeof(e.value) = 'string'
    on conflict do nothing`.execute(db);
  await sql`create index message_metadata_search on message_metadata (server_id, stream_id, key, value, received_at, message_id)`.execute(db);
  await sql`create index messages_sandbox_tag on messages (server_id, md5(lower(tag)), received_at, id) where sandbox = 1`.execute(db);
}

async function sqlite(db: Kysely<any>): Promise<void> {
  // WITHOUT ROWID: the rows are clustered by (message_id, key), which time-ordered ids append to.
  await sql`create table message_metadata (
    message_id text not null references messages (id) on delete cascade,
    key text not null,
    server_id integer not null,
    stream_id text not null,
    value text not null,
    received_at integer not null,
    primary key (message_id, key)
  ) without rowid`.execute(db);
  await sql`insert or ignore into message_metadata (message_id, key, server_id, stream_id, value, received_at)
    select m.id, j.key, m.server_id, m.stream_id, j.value, m.received_at
      from messages m, json_each(case when json_valid(m.metadata) and json_type(m.metadata) = 'object' then m.metadata else '{}' end) j
     where m.metadata is not null and m.metadata <> '{}' and j.type = 'text'`.execute(db);
  await sql`create index message_metadata_search on message_metadata (server_id, stream_id, key, value, received_at, message_id)`.execute(db);
  await sql`create index messages_sandbox_tag on messages (server_id, lower(tag), received_at, id) where sandbox = 1`.execute(db);
}

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await postgres(db);
  else await sqlite(db);
}
