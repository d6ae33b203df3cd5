// Mailpit's REST API over a server's messages (src/domain/mailpit): what Mailpit keeps per message
// and mailroom did not, the read flag and the tags set through that API, in a table of its own keyed by the
// message id. Only messages someone read or tagged have a row: accepting a message writes nothing here.
//
// On PostgreSQL the table is RANGE-partitioned by message_id like the other children of messages (migration
// 0023): a day partition per day that messages has now (made here), the days ahead by the partitions-ahead
// task (infra/db/partitions.ts lists the table), dropped with the day by retention, deleted with its message
// by deleteMessagesCascading. On SQLite a foreign key cascades.
//
// The sandbox listing index: Mailpit lists all of a server's messages newest first, across its streams.
// messages_stream_time is per stream, so that order was a sort of every message of the server (100,000 in
// bench:mailpit). Partial on sandbox = 1: a Live server's sending path maintains no extra index entry.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const DAY = 86_400_000;
const bound = (ms: number) => {
  const h = Math.floor(ms).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
};

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`create table mailpit_state (
      message_id text not null primary key,
      server_id integer not null,
      read integer not null default 0,
      tags text
    ) partition by range (message_id)`.execute(db);
    await sql`create table mailpit_state_default partition of mailpit_state default`.execute(db);
    // The days messages has a partition for (today and the week ahead at least, older days kept).
    const days = await sql<{ child: string }>`
      select c.relname as child from pg_inherits i join pg_class p on p.oid = i.inhparent join pg_class c on c.oid = i.inhrelid
       where p.relnamespace = current_schema()::regnamespace and p.relname = 'messages'`.execute(db);
    for (const { child } of days.rows) {
      const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(child);
      if (!m) continue;
      const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      await sql`create table ${sql.id(`mailpit_state_p${m[1]}${m[2]}${m[3]}`)} partition of mailpit_state for values from (${sql.lit(bound(day))}) to (${sql.lit(bound(day + DAY))})`.execute(db);
    }
  } else {
    await sql`create table mailpit_state (
      message_id text not null primary key references messages (id) on delete cascade,
      server_id integer not null,
      read integer not null default 0,
      tags text
    )`.execute(db);
  }
  // Unread = the server's messages less its read ones: a count over this partial index.
  await sql`create index mailpit_state_read on mailpit_state (server_id) where read = 1`.execute(db);
  // Tags set through the API (few messages): listed and renamed per server.
  await sql`create index mailpit_state_tags on mailpit_state (server_id) where tags is not null`.execute(db);
  await sql`create index messages_sandbox_time on messages (server_id, received_at, id) where sandbox = 1`.execute(db);
}
