// Mailpit's inbox figures kept as they change instead of counted per request: per server, how many Sandbox
// messages it holds and how many of them are unread (the row with tag ''), and per tag how many of them carry
// it (a message's tags: its mailpit_state.tags list when set, else its Postmark Tag). Triggers keep them, so
// every path that writes messages or mailpit_state (accepting, Mailpit's read flag and tags, deletes,
// retention, server deletion) keeps them in its own transaction; dropping a day partition fires nothing and
// subtracts that day itself (infra/db/mailpit-counts.ts).
//
// The figure of a message m with its state s: 1 message, 1 - s.read unread, and its tags. Each trigger adds
// the change of that sum, reading the other table as it is: a message's insert or delete adds or subtracts
// the message with its state; a state's change counts only while its message exists. Deleting a message
// and its state in either order therefore subtracts it once (SQLite: the state goes first, deleted by the
// message's BEFORE DELETE trigger, since a foreign key's cascade would otherwise race the message's trigger).
//
// PostgreSQL: concurrent accepts into one server would all update the same row, serializing their commits.
// Each connection adds to rows of its own (slot = its backend pid), summed when read and folded into slot 0
// by a compaction (infra/db/mailpit-counts.ts). Statement triggers with transition tables: one upsert per
// statement, not per row, and partitions moved by name (a stray day's rows) fire none.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const UPSERT_TEXT = `on conflict (server_id, tag, slot) do update set n = mailpit_counts.n + excluded.n, unread = mailpit_counts.unread + excluded.unread`;

// ---- SQLite: row triggers, slot 0 ----

/** Adds (sign 1) or subtracts (-1) the figure of message row `x` (new/old) with its current state. */
function sqliteMessage(x: 'new' | 'old', sign: 1 | -1): string {
  const st = `(select s.read from mailpit_state s where s.message_id = ${x}.id)`;
  return `insert into mailpit_counts (server_id, tag, slot, n, unread)
      select ${x}.server_id, '', 0, ${sign}, ${sign} * (1 - coalesce(${st}, 0)) where ${x}.sandbox = 1 ${UPSERT_TEXT};
    insert into mailpit_counts (server_id, tag, slot, n, unread)
      select ${x}.server_id, t, 0, ${sign}, 0 from (
        select ${x}.tag as t where coalesce(${x}.tag, '') <> '' and not exists (select 1 from mailpit_state s where s.message_id = ${x}.id and s.tags is not null)
        union all
        select j.value from mailpit_state s, json_each(s.tags) j where s.message_id = ${x}.id and s.tags is not null and j.type = 'text' and j.value <> ''
      ) where ${x}.sandbox = 1 ${UPSERT_TEXT};`;
}

/** The read part of a state row's figure (its message's unread less its read), while its message exists. */
function sqliteRead(delta: string, id: string): string {
  return `insert into mailpit_counts (server_id, tag, slot, n, unread)
      select m.server_id, '', 0, 0, ${delta} from messages m where m.id = ${id} and m.sandbox = 1 ${UPSERT_TEXT};`;
}

/** The tags part of state row `x`: its list replaces its message's Tag. */
function sqliteTags(x: 'new' | 'old', sign: 1 | -1): string {
  return `insert into mailpit_counts (server_id, tag, slot, n, unread)
      select m.server_id, t, 0, sum(d), 0 from messages m join (
        select j.value as t, ${sign} as d from json_each(${x}.tags) j where j.type = 'text' and j.value <> ''
        union all
        select m2.tag, ${-sign} from messages m2 where m2.id = ${x}.message_id and coalesce(m2.tag, '') <> ''
      ) on 1 = 1 where m.id = ${x}.message_id and m.sandbox = 1 and ${x}.tags is not null group by m.server_id, t ${UPSERT_TEXT};`;
}

async function sqlite(db: Kysely<any>): Promise<void> {
  await sql`create table mailpit_counts (
    server_id integer not null, tag text not null, slot integer not null, n integer not null, unread integer not null,
    primary key (server_id, tag, slot)) without rowid`.execute(db);
  const t = (s: string) => sql.raw(s).execute(db);
  await t(`create trigger mailpit_counts_message_insert after insert on messages when new.sandbox = 1 begin ${sqliteMessage('new', 1)} end`);
  await t(`create trigger mailpit_counts_message_delete before delete on messages when old.sandbox = 1 begin
      delete from mailpit_state where message_id = old.id;
      ${sqliteMessage('old', -1)} end`);
  await t(`create trigger mailpit_counts_message_update after update of server_id, sandbox, tag on messages
      when old.server_id is not new.server_id or old.sandbox is not new.sandbox or old.tag is not new.tag begin
      ${sqliteMessage('old', -1)} ${sqliteMessage('new', 1)} end`);
  await t(`create trigger mailpit_counts_state_insert after insert on mailpit_state begin
      ${sqliteRead('-new.read', 'new.message_id')} ${sqliteTags('new', 1)} end`);
  await t(`create trigger mailpit_counts_state_read after update of read, message_id on mailpit_state
      when old.read is not new.read or old.message_id is not new.message_id begin
      ${sqliteRead('old.read', 'old.message_id')} ${sqliteRead('-new.read', 'new.message_id')} end`);
  await t(`create trigger mailpit_counts_state_tags after update of tags, message_id on mailpit_state
      when old.tags is not new.tags or old.message_id is not new.message_id begin
      ${sqliteTags('old', -1)} ${sqliteTags('new', 1)} end`);
  await t(`create trigger mailpit_counts_state_delete after delete on mailpit_state begin
      ${sqliteRead('old.read', 'old.message_id')} ${sqliteTags('old', -1)} end`);
  await t(`create trigger mailpit_counts_server_delete after delete on servers begin
      delete from mailpit_counts where server_id = old.id; end`);
  await sql`insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, 0, sum(n), sum(unread) from (
      select m.server_id, '' as tag, 1 as n, 1 - coalesce(s.read, 0) as unread from messages m left join mailpit_state s on s.message_id = m.id where m.sandbox = 1
      union all
      select m.server_id, m.tag, 1, 0 from messages m left join mailpit_state s on s.message_id = m.id where m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
      union all
      select m.server_id, j.value, 1, 0 from messages m join mailpit_state s on s.message_id = m.id, json_each(s.tags) j where m.sandbox = 1 and s.tags is not null and j.type = 'text' and j.value <> ''
    ) group by server_id, tag`.execute(db);
}

// ---- PostgreSQL: statement triggers over transition tables, a slot per connection ----

/** The figures of the messages of relation `rel` (aliased m) with their current state, signed. */
function pgMessages(rel: string, sign: 1 | -1): string {
  return `select m.server_id, '' as tag, ${sign} as n, ${sign} * (1 - coalesce(s.read, 0)) as unread from ${rel} left join mailpit_state s on s.message_id = m.id where m.sandbox = 1
    union all
    select m.server_id, m.tag, ${sign}, 0 from ${rel} left join mailpit_state s on s.message_id = m.id where m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
    union all
    select m.server_id, j.t, ${sign}, 0 from ${rel} join mailpit_state s on s.message_id = m.id cross join lateral json_array_elements_text(s.tags::json) as j(t) where m.sandbox = 1 and s.tags is not null and j.t <> ''`;
}

/** The figures of state rows of relation `rel` (aliased s) whose message exists, signed. */
function pgState(rel: string, sign: 1 | -1): string {
  return `select m.server_id, '' as tag, 0 as n, ${-sign} * s.read as unread from ${rel} join messages m on m.id = s.message_id where m.sandbox = 1
    union all
    select m.server_id, j.t, ${sign}, 0 from ${rel} join messages m on m.id = s.message_id cross join lateral json_array_elements_text(s.tags::json) as j(t) where m.sandbox = 1 and s.tags is not null and j.t <> ''
    union all
    select m.server_id, m.tag, ${-sign}, 0 from ${rel} join messages m on m.id = s.message_id where m.sandbox = 1 and s.tags is not null and coalesce(m.tag, '') <> ''`;
}

const pgAdd = (figures: string) => `insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, pg_backend_pid(), sum(n), sum(unread) from (${figures}) x group by server_id, tag having sum(n) <> 0 or sum(unread) <> 0
    ${UPSERT_TEXT};`;

async function pgFunction(db: Kysely<any>, name: string, body: string): Promise<void> {
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $f$ begin ${body} return null; end $f$`).execute(db);
}

async function postgres(db: Kysely<any>): Promise<void> {
  await sql`create table mailpit_counts (
    server_id integer not null, tag text not null, slot integer not null, n integer not null, unread integer not null,
    primary key (server_id, tag, slot))`.execute(db);
  const sandboxIn = (rel: string) => `if not exists (select 1 from ${rel} where sandbox = 1) then return null; end if;`;
  await pgFunction(db, 'mailpit_counts_messages_insert', `${sandboxIn('nt')} ${pgAdd(pgMessages('nt m', 1))}`);
  await pgFunction(db, 'mailpit_counts_messages_delete', `${sandboxIn('ot')} ${pgAdd(pgMessages('ot m', -1))}`);
  const row = (x: string) => `(select ${x}.id as id, ${x}.server_id as server_id, ${x}.sandbox as sandbox, ${x}.tag as tag) m`;
  await pgFunction(db, 'mailpit_counts_message_update', pgAdd(`${pgMessages(row('old'), -1)} union all ${pgMessages(row('new'), 1)}`));
  await pgFunction(db, 'mailpit_counts_state_insert', pgAdd(pgState('nt s', 1)));
  await pgFunction(db, 'mailpit_counts_state_update', pgAdd(`${pgState('ot s', -1)} union all ${pgState('nt s', 1)}`));
  await pgFunction(db, 'mailpit_counts_state_delete', pgAdd(pgState('ot s', -1)));
  await pgFunction(db, 'mailpit_counts_server_delete', 'delete from mailpit_counts where server_id = old.id;');
  const t = (s: string) => sql.raw(s).execute(db);
  await t(`create trigger mailpit_counts_insert after insert on messages referencing new table as nt for each statement execute function mailpit_counts_messages_insert()`);
  await t(`create trigger mailpit_counts_delete after delete on messages referencing old table as ot for each statement execute function mailpit_counts_messages_delete()`);
  await t(`create trigger mailpit_counts_update after update of server_id, sandbox, tag on messages for each row
    when (old.server_id is distinct from new.server_id or old.sandbox is distinct from new.sandbox or old.tag is distinct from new.tag) execute function mailpit_counts_message_update()`);
  await t(`create trigger mailpit_counts_insert after insert on mailpit_state referencing new table as nt for each statement execute function mailpit_counts_state_insert()`);
  await t(`create trigger mailpit_counts_update after update on mailpit_state referencing old table as ot new table as nt for each statement execute function mailpit_counts_state_update()`);
  await t(`create trigger mailpit_counts_delete after delete on mailpit_state referencing old table as ot for each statement execute function mailpit_counts_state_delete()`);
  await t(`create trigger mailpit_counts_server_delete after delete on servers for each row execute function mailpit_counts_server_delete()`);
  await sql`insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, 0, sum(n), sum(unread) from (${sql.raw(pgMessages('messages m', 1))}) x group by server_id, tag`.execute(db);
}

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await postgres(db);
  else await sqlite(db);
}
