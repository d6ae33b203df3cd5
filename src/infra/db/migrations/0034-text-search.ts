// Substring search on indexes made for it: Mailpit's search (free text, to:, from:, subject: ...) and the
// API's `subject` filter read a trigram index instead of every message of a server.
//
// SQLite: FTS5 with the trigram tokenizer, contentless (the text stays in messages; the index holds only
// trigrams and their positions) with contentless_delete so that a deleted message leaves it. messages_text is
// keyed by the message's rowid: every message's subject (the API filters any server's messages by subject),
// and the other text of Sandbox messages only, which is what Mailpit's API searches (a Live server's sending
// path indexes no body). recipients_text is keyed by message_recipients.id: every recipient's address and
// name. Triggers keep both in the transaction that writes the message, on every path that writes one.
//
// PostgreSQL: pg_trgm GIN indexes, which serve ILIKE: the subject of every message, the other text of
// Sandbox messages (partial), every recipient's address and name. GIN's pending list (fastupdate) keeps the
// insert's share small; the indexes are built per day partition.
//
// The backfill is one statement per table in the migration's transaction, linear in the stored text
// (bench/README.md, "bench/volume", has its time at a million messages); writes wait for it.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

async function sqlite(db: Kysely<any>): Promise<void> {
  await sql`create virtual table messages_text using fts5(subject, from_raw, reply_to, text_body, html_body, tag, attachments, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
  await sql`create virtual table recipients_text using fts5(email, name, content='', contentless_delete=1, tokenize='trigram')`.execute(db);
  const row = (n: string) => sql.raw(`${n}.rowid, ${n}.subject,
      case when ${n}.sandbox = 1 then ${n}.from_raw end, case when ${n}.sandbox = 1 then ${n}.reply_to end,
      case when ${n}.sandbox = 1 then ${n}.text_body end, case when ${n}.sandbox = 1 then ${n}.html_body end,
      case when ${n}.sandbox = 1 then ${n}.tag end, case when ${n}.sandbox = 1 then ${n}.attachments end`);
  const cols = sql.raw('rowid, subject, from_raw, reply_to, text_body, html_body, tag, attachments');
  await sql`create trigger messages_text_insert after insert on messages begin
      insert into messages_text (${cols}) values (${row('new')}); end`.execute(db);
  await sql`create trigger messages_text_delete after delete on messages begin
      delete from messages_text where rowid = old.rowid; end`.execute(db);
  await sql`create trigger messages_text_update after update of subject, from_raw, reply_to, text_body, html_body, tag, attachments, sandbox on messages begin
      delete from messages_text where rowid = old.rowid;
      insert into messages_text (${cols}) values (${row('new')}); end`.execute(db);
  await sql`create trigger recipients_text_insert after insert on message_recipients begin
      insert into recipients_text (rowid, email, name) values (new.id, new.email, new.name); end`.execute(db);
  await sql`create trigger recipients_text_delete after delete on message_recipients begin
      delete from recipients_text where rowid = old.id; end`.execute(db);
  await sql`create trigger recipients_text_update after update of email, name on message_recipients begin
      delete from recipients_text where rowid = old.id;
      insert into recipients_text (rowid, email, name) values (new.id, new.email, new.name); end`.execute(db);
  await sql`insert into messages_text (${cols}) select ${row('m')} from messages m`.execute(db);
  await sql`insert into recipients_text (rowid, email, name) select id, email, name from message_recipients`.execute(db);
}

async function postgres(db: Kysely<any>): Promise<void> {
  // The extension is per database, the schemas of several mailrooms (tests) share it: one creates it.
  await sql`select pg_advisory_xact_lock(7262733)`.execute(db);
  await sql`create extension if not exists pg_trgm with schema public`.execute(db);
  const found = await sql<{ nspname: string }>`select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const ops = sql.raw(`"${found.rows[0]!.nspname.replace(/"/g, '""')}".gin_trgm_ops`);
  await sql`create index messages_subject_text on messages using gin (subject ${ops})`.execute(db);
  await sql`create index messages_sandbox_text on messages using gin (from_raw ${ops}, reply_to ${ops}, text_body ${ops}, html_body ${ops}, tag ${ops}, attachments ${ops}) where sandbox = 1`.execute(db);
  await sql`create index recipients_text on message_recipients using gin (email ${ops}, name ${ops})`.execute(db);
}

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await postgres(db);
  else await sqlite(db);
}
