// Mailpit's kept figures (0038) also keep each tag's unread messages: a tag's row in mailpit_counts now
// carries, beside how many messages have the tag (n), how many of those are unread (unread; 0038 left it 0).
// A search of one tag and the read flag (`tag:x is:unread`, the inbox's most common filter) is then counted
// from these rows instead of reading the tag's newest 10,000 matches with their state
// (domain/mailpit/counts.ts).
//
// The figure of a message m with its state s, as 0038 defines it, now with the read flag on every row: 1
// message and 1 - s.read unread on the row '' and on each of its tags (s.tags when set, else m.tag). The
// triggers are 0038's, their bodies rewritten to add the tags' unread change; a state row's change is
// written as its figure less the figure of the message without state (1 and 1 unread on '' and m.tag), old
// row subtracted, new row added, so that a change of the read flag and the tags in one statement is exact.
// SQLite: the two update triggers of 0038 (read; tags) become one, for that reason.
//
// The backfill adds, per tag, its messages (n, kept) less its read messages (from mailpit_state) to the
// unread 0038 kept at 0; the writers of both tables wait for it (PostgreSQL: a share lock; SQLite: the
// migration's exclusive transaction).
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
      select ${x}.server_id, t, 0, ${sign}, ${sign} * u from (
        select ${x}.tag as t, 1 - coalesce(${st}, 0) as u where coalesce(${x}.tag, '') <> '' and not exists (select 1 from mailpit_state s where s.message_id = ${x}.id and s.tags is not null)
        union all
        select j.value, 1 - s.read from mailpit_state s, json_each(s.tags) j where s.message_id = ${x}.id and s.tags is not null and j.type = 'text' and j.value <> ''
      ) where ${x}.sandbox = 1 ${UPSERT_TEXT};`;
}

/** Adds (1) or subtracts (-1) state row `x`'s figure less its message's figure without state, while its message exists. */
function sqliteState(x: 'new' | 'old', sign: 1 | -1): string {
  return `insert into mailpit_counts (server_id, tag, slot, n, unread)
      select m.server_id, '', 0, 0, ${-sign} * ${x}.read from messages m where m.id = ${x}.message_id and m.sandbox = 1 ${UPSERT_TEXT};
    insert into mailpit_counts (server_id, tag, slot, n, unread)
      select m.server_id, t, 0, sum(dn), sum(du) from messages m join (
        select m2.tag as t, 0 as dn, ${-sign} * ${x}.read as du from messages m2 where m2.id = ${x}.message_id and ${x}.tags is null and coalesce(m2.tag, '') <> ''
        union all
        select j.value, ${sign}, ${sign} * (1 - ${x}.read) from json_each(${x}.tags) j where ${x}.tags is not null and j.type = 'text' and j.value <> ''
        union all
        select m2.tag, ${-sign}, ${-sign} from messages m2 where m2.id = ${x}.message_id and ${x}.tags is not null and coalesce(m2.tag, '') <> ''
      ) on 1 = 1 where m.id = ${x}.message_id and m.sandbox = 1 group by m.server_id, t having sum(dn) <> 0 or sum(du) <> 0 ${UPSERT_TEXT};`;
}

async function sqlite(db: Kysely<any>): Promise<void> {
  const t = (s: string) => sql.raw(s).execute(db);
  for (const name of ['message_insert', 'message_delete', 'message_update', 'state_insert', 'state_read', 'state_tags', 'state_delete']) {
    await t(`drop trigger mailpit_counts_${name}`);
  }
  await t(`create trigger mailpit_counts_message_insert after insert on messages when new.sandbox = 1 begin ${sqliteMessage('new', 1)} end`);
  await t(`create trigger mailpit_counts_message_delete before delete on messages when old.sandbox = 1 begin
      delete from mailpit_state where message_id = old.id;
      ${sqliteMessage('old', -1)} end`);
  await t(`create trigger mailpit_counts_message_update after update of server_id, sandbox, tag on messages
      when old.server_id is not new.server_id or old.sandbox is not new.sandbox or old.tag is not new.tag begin
      ${sqliteMessage('old', -1)} ${sqliteMessage('new', 1)} end`);
  await t(`create trigger mailpit_counts_state_insert after insert on mailpit_state begin ${sqliteState('new', 1)} end`);
  await t(`create trigger mailpit_counts_state_update after update of read, tags, message_id on mailpit_state
      when old.read is not new.read or old.tags is not new.tags or old.message_id is not new.message_id begin
      ${sqliteState('old', -1)} ${sqliteState('new', 1)} end`);
  await t(`create trigger mailpit_counts_state_delete after delete on mailpit_state begin ${sqliteState('old', -1)} end`);
  await sql`insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, 0, 0, sum(u) from (
      select server_id, tag, n as u from mailpit_counts where tag <> ''
      union all
      select m.server_id, m.tag, -1 from mailpit_state s join messages m on m.id = s.message_id where s.read = 1 and m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
      union all
      select m.server_id, j.value, -1 from mailpit_state s join messages m on m.id = s.message_id, json_each(s.tags) j where s.read = 1 and m.sandbox = 1 and s.tags is not null and j.type = 'text' and j.value <> ''
    ) group by server_id, tag having sum(u) <> 0
    ${sql.raw(UPSERT_TEXT)}`.execute(db);
}

// ---- PostgreSQL: 0038's statement triggers over transition tables, a slot per connection ----

/** The figures of the messages of relation `rel` (aliased m) with their current state, signed. */
function pgMessages(rel: string, sign: 1 | -1): string {
  return `select m.server_id, '' as tag, ${sign} as n, ${sign} * (1 - coalesce(s.read, 0)) as unread from ${rel} left join mailpit_state s on s.message_id = m.id where m.sandbox = 1
    union all
    select m.server_id, m.tag, ${sign}, ${sign} * (1 - coalesce(s.read, 0)) from ${rel} left join mailpit_state s on s.message_id = m.id where m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
    union all
    select m.server_id, j.t, ${sign}, ${sign} * (1 - s.read) from ${rel} join mailpit_state s on s.message_id = m.id cross join lateral json_array_elements_text(s.tags::json) as j(t) where m.sandbox = 1 and s.tags is not null and j.t <> ''`;
}

/** State rows of relation `rel` (aliased s) whose message exists: their figure less their message's without state, signed. */
function pgState(rel: string, sign: 1 | -1): string {
  return `select m.server_id, '' as tag, 0 as n, ${-sign} * s.read as unread from ${rel} join messages m on m.id = s.message_id where m.sandbox = 1
    union all
    select m.server_id, m.tag, 0, ${-sign} * s.read from ${rel} join messages m on m.id = s.message_id where m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
    union all
    select m.server_id, j.t, ${sign}, ${sign} * (1 - s.read) from ${rel} join messages m on m.id = s.message_id cross join lateral json_array_elements_text(s.tags::json) as j(t) where m.sandbox = 1 and s.tags is not null and j.t <> ''
    union all
    select m.server_id, m.tag, ${-sign}, ${-sign} from ${rel} join messages m on m.id = s.message_id where m.sandbox = 1 and s.tags is not null and coalesce(m.tag, '') <> ''`;
}

const pgAdd = (figures: string) => `insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, pg_backend_pid(), sum(n), sum(unread) from (${figures}) x group by server_id, tag having sum(n) <> 0 or sum(unread) <> 0
    ${UPSERT_TEXT};`;

async function pgFunction(db: Kysely<any>, name: string, body: string): Promise<void> {
  await sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $f$ begin ${body} return null; end $f$`).execute(db);
}

async function postgres(db: Kysely<any>): Promise<void> {
  // Within the migrations' transaction, held to its end; a DO block, so that a lone run of up() (tests) may take it too.
  await sql`do $$ begin lock table messages, mailpit_state in share mode; end $$`.execute(db);
  const sandboxIn = (rel: string) => `if not exists (select 1 from ${rel} where sandbox = 1) then return null; end if;`;
  await pgFunction(db, 'mailpit_counts_messages_insert', `${sandboxIn('nt')} ${pgAdd(pgMessages('nt m', 1))}`);
  await pgFunction(db, 'mailpit_counts_messages_delete', `${sandboxIn('ot')} ${pgAdd(pgMessages('ot m', -1))}`);
  const row = (x: string) => `(select ${x}.id as id, ${x}.server_id as server_id, ${x}.sandbox as sandbox, ${x}.tag as tag) m`;
  await pgFunction(db, 'mailpit_counts_message_update', pgAdd(`${pgMessages(row('old'), -1)} union all ${pgMessages(row('new'), 1)}`));
  await pgFunction(db, 'mailpit_counts_state_insert', pgAdd(pgState('nt s', 1)));
  await pgFunction(db, 'mailpit_counts_state_update', pgAdd(`${pgState('ot s', -1)} union all ${pgState('nt s', 1)}`));
  await pgFunction(db, 'mailpit_counts_state_delete', pgAdd(pgState('ot s', -1)));
  await sql`insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, 0, 0, sum(u) from (
      select server_id, tag, n as u from mailpit_counts where tag <> ''
      union all
      select m.server_id, m.tag, -1 from mailpit_state s join messages m on m.id = s.message_id where s.read = 1 and m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
      union all
      select m.server_id, j.t, -1 from mailpit_state s join messages m on m.id = s.message_id cross join lateral json_array_elements_text(s.tags::json) as j(t) where s.read = 1 and m.sandbox = 1 and s.tags is not null and j.t <> ''
    ) x group by server_id, tag having sum(u) <> 0
    ${sql.raw(UPSERT_TEXT)}`.execute(db);
}

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await postgres(db);
  else await sqlite(db);
}
