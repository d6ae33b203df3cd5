// Retention at scale on PostgreSQL: messages and the five tables that hang off them are
// RANGE-partitioned by the message id, one partition per UTC day, so that retention drops a whole day of
// them at once (src/infra/db/partitions.ts) instead of deleting rows one by one. SQLite keeps plain tables.
//
// Why the id and not received_at: a MessageID is a UUID version 7 (RFC 9562 5.7) made from the same
// clock reading as received_at (domain/accepting/commit-units.ts), so its first 48 bits are the creation
// time and a range of ids is a range of time. Keyed by the id, the primary key stays (id), every lookup by
// message id (details, dump, delivery, tracking, bounces) is pruned to one partition, and the children keyed
// by message_id land in the same day as their message: an open weeks later still goes with its message.
// Ids that are not of that form (none are written by mailroom; tests and old imports may have some) and
// days without a partition yet go to the DEFAULT partition, which the row-by-row purge still covers.
//
// PostgreSQL cannot reference a partitioned table by a foreign key and drop one of its partitions while
// the reference stands, so the children's foreign keys to messages are dropped here: their ON DELETE
// CASCADE is replaced by dropping the same day of every table together, and by the row deletes naming
// the children (infra/db/partitions-cascade.ts). Identity columns are not allowed on a partitioned table
// before PostgreSQL 17: the children's ids become plain sequences, continuing where the identity stood; a
// primary key must contain the partition key, so (id) becomes (id, message_id), still unique by the
// sequence. Existing rows are copied in this migration's transaction; indexes are rebuilt after the copy,
// from their own definitions, which is cheaper than maintaining them row by row during it.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const TABLES = [
  { name: 'messages', key: 'id' },
  { name: 'message_recipients', key: 'message_id' },
  { name: 'message_attachments', key: 'message_id' },
  { name: 'message_events', key: 'message_id' },
  { name: 'opens', key: 'message_id' },
  { name: 'clicks', key: 'message_id' },
] as const;
const DAY_MS = 86_400_000;
/** Partitions made here ahead of today when there are messages: tomorrow. The periodic task of the worker
 * role makes the rest of the week ahead at its first run (infra/db/partitions.ts). */
const AHEAD_DAYS = 1;
/** Existing days older than this get no partition of their own: their rows are copied into the default
 * partition and leave it by the row purge, as they would have before. One transaction holds a lock per
 * table and index it creates (~36 per day for the six tables), from a pool shared by the whole server
 * (max_locks_per_transaction x max_connections, 6,400 by default): a year of days failed with "out of
 * shared memory". 60 days cover the default retention (45). */
const MAX_BACK_DAYS = 60;

/** The smallest UUIDv7 text of millisecond `ms`: 12 hex digits of time, the rest zero. */
const bound = (ms: number) => {
  const h = Math.floor(ms).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
};
const dayName = (ms: number) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');

async function rows<T>(db: Kysely<any>, text: string): Promise<T[]> {
  return (await sql.raw<T>(text).execute(db)).rows;
}
const run = (db: Kysely<any>, text: string) => sql.raw(text).execute(db);
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  if (d !== 'postgres') return;
  // Ranges compare ids as text under the database's collation: every collation in use sorts the hex digits
  // 0-9 before a-f, which makes text order of same-shaped ids their time order. Refuse one that does not.
  const [order] = await rows<{ s: string }>(db, `select string_agg(c, '' order by c) as s from unnest(string_to_array('f,a,9,0,5,c', ',')) as c`);
  if (order.s !== '059acf') throw new Error(`0023: the database collation sorts hex digits as "${order.s}"; time partitions need 0-9 before a-f`);

  // The children's foreign keys to messages (and any other table's) go first: see above.
  for (const fk of await rows<{ tbl: string; name: string }>(
    db,
    `select conrelid::regclass::text as tbl, conname as name from pg_constraint where contype = 'f' and confrelid = 'messages'::regclass`,
  )) {
    await run(db, `alter table ${fk.tbl} drop constraint ${fk.name}`);
  }

  // Days of the existing messages get their partition here, up to tomorrow. An empty database (a new one)
  // gets the default partition only: the first run of the periodic task makes today and the week ahead
  // (and moves anything already accepted into them), and every new database, each test's among them, is
  // spared creating some 50 tables with their indexes here (~2 s).
  const now = Date.now();
  const [span] = await rows<{ lo: string | null }>(db, `select min(received_at)::text as lo from messages`);
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days: number[] = [];
  if (span.lo !== null) {
    const first = Math.max(Math.floor(Number(span.lo) / DAY_MS) * DAY_MS, today - MAX_BACK_DAYS * DAY_MS);
    for (let t = first; t <= today + AHEAD_DAYS * DAY_MS; t += DAY_MS) days.push(t);
  }

  for (const { name, key } of TABLES) await convert(db, name, key, days, span.lo !== null);
}

async function convert(db: Kysely<any>, name: string, key: string, days: number[], copied: boolean): Promise<void> {
  const old = `${name}_unpartitioned`;
  const reg = lit(name);
  // What the table has, read before anything changes: plain indexes (their definitions name the table,
  // which the new one takes over), constraints, identity columns with where their sequence stands.
  const indexes = await rows<{ name: string; def: string; uniq: boolean }>(
    db,
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def, i.indisunique as uniq from pg_index i
      where i.indrelid = ${reg}::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
  );
  const constraints = await rows<{ name: string; def: string; type: string }>(
    db,
    `select conname as name, pg_get_constraintdef(oid) as def, contype as type from pg_constraint where conrelid = ${reg}::regclass and contype in ('p', 'u', 'f')`,
  );
  const identities = await rows<{ col: string; seq: string }>(
    db,
    `select attname as col, pg_get_serial_sequence(${reg}, attname) as seq from pg_attribute where attrelid = ${reg}::regclass and attidentity <> ''`,
  );
  const sequences: Array<{ col: string; last: string; called: boolean }> = [];
  for (const id of identities) {
    const [s] = await rows<{ last: string; called: boolean }>(db, `select last_value::text as last, is_called as called from ${id.seq}`);
    sequences.push({ col: id.col, ...s });
  }

  // Everything else is known now: one round trip for the table's statements (simple query protocol).
  const q: string[] = [];
  q.push(`alter table ${name} rename to ${old}`);
  for (const i of indexes) q.push(`drop index ${i.name}`);
  for (const c of constraints) q.push(`alter table ${old} drop constraint ${c.name}`);
  for (const s of sequences) q.push(`alter table ${old} alter column ${s.col} drop identity`);

  q.push(`create table ${name} (like ${old} including defaults including constraints including storage) partition by range (${key})`);
  for (const s of sequences) {
    const seq = `${name}_${s.col}_seq`;
    q.push(`create sequence ${seq} as bigint owned by ${name}.${s.col}`);
    q.push(`select setval(${lit(seq)}, ${s.last}, ${s.called})`);
    q.push(`alter table ${name} alter column ${s.col} set default nextval(${lit(seq)})`);
  }
  q.push(`create table ${name}_default partition of ${name} default`);
  for (let i = 0; i < days.length; i++) {
    const next = days[i] + DAY_MS;
    q.push(`create table ${name}_p${dayName(days[i])} partition of ${name} for values from (${lit(bound(days[i]))}) to (${lit(bound(next))})`);
  }

  q.push(`insert into ${name} select * from ${old}`);
  q.push(`drop table ${old}`);

  // Indexes after the copy: one sorted build per partition instead of a B-tree insert per row.
  for (const c of constraints) {
    if (c.type === 'f') {
      q.push(`alter table ${name} add constraint ${c.name} ${c.def}`);
      continue;
    }
    const cols = /\((.*)\)/.exec(c.def)![1].split(',').map((s) => s.trim());
    if (!cols.includes(key)) cols.push(key);
    q.push(`alter table ${name} add constraint ${c.name} ${c.type === 'p' ? 'primary key' : 'unique'} (${cols.join(', ')})`);
  }
  for (const i of indexes) {
    if (i.uniq && !new RegExp(`\\(([^)]*[ ,(])?${key}[,)]`).test(i.def)) throw new Error(`0023: unique index ${i.name} lacks the partition key ${key}`);
    q.push(i.def);
  }
  // Statistics for the copied rows; a new, empty database is left as any other new table (never analyzed).
  if (copied) q.push(`analyze ${name}`);
  await run(db, q.join(';\n'));
}
