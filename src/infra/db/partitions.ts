// Day partitions of the message tables on PostgreSQL (migration 0023): made ahead by a periodic task,
// dropped whole by retention. SQLite has none: every function here is a no-op there, and retention deletes
// rows as it always did.
//
// One partition per UTC day, because retention is set in days (7-365): a day is the finest unit in which
// messages expire together, it keeps the number of partitions at the longest retention plus a week
// (46-52 per table at the default 45 days, 372 at most), and it bounds how long a message of the servers
// with the longest retention outlives its retention: until its whole day has expired, at most 24 h more.
// A week per partition would keep up to 7 days too long and leave more to the row deletes of the other
// servers; an hour would multiply the partitions every unpruned search has to open by 24.
//
// Each table is ranged by the message id (a UUIDv7: its first 48 bits are the creation time in ms, the
// same reading as received_at), so lookups by message id are pruned to one partition.
import { sql, type Kysely } from 'kysely';
import { subtractDayPartition } from './mailpit-counts.js';
import { dialectOf } from './util.js';

export const PARTITION_DAY_MS = 86_400_000;
/** Days made ahead of today: a week without the periodic task before new mail reaches the default partition. */
export const PARTITIONS_AHEAD_DAYS = 7;
export const PARTITIONS_EVERY_MS = 60 * 60_000;
/** Partition maintenance waits at most this long for its locks (a drop needs a brief ACCESS EXCLUSIVE on
 * the parent): a long search then delays it to the next run instead of queueing every query behind it. */
const LOCK_TIMEOUT = '3s';

/** The partitioned tables with their key; messages last, so that a day is never left with children only. */
export const PARTITIONED_TABLES = [
  { name: 'message_recipients', key: 'message_id' },
  { name: 'message_attachments', key: 'message_id' },
  { name: 'message_events', key: 'message_id' },
  { name: 'opens', key: 'message_id' },
  { name: 'clicks', key: 'message_id' },
  { name: 'mailpit_state', key: 'message_id' },
  { name: 'message_metadata', key: 'message_id' },
  { name: 'messages', key: 'id' },
] as const;

export const dayStart = (ms: number) => Math.floor(ms / PARTITION_DAY_MS) * PARTITION_DAY_MS;

/** The smallest UUIDv7 text of millisecond `ms` (12 hex digits of time, the rest zero): a partition bound. */
export function idBound(ms: number): string {
  const h = Math.floor(ms).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}

export const partitionName = (table: string, day: number) => `${table}_p${new Date(day).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** A day partition's day (UTC midnight, ms), read from its name (partitionName); null for any other table. */
export function partitionDay(name: string): number | null {
  const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
}

export interface DayPartition {
  parent: string;
  name: string;
  day: number;
  /** The planner's row estimate (pg_class.reltuples): -1 before the partition's first analyze. */
  rows: number;
}

/** The day partitions of the current schema's partitioned tables (of `table` only, when named); PostgreSQL. */
export async function dayPartitions(db: Kysely<any>, table?: string): Promise<DayPartition[]> {
  const r = await sql<{ parent: string; child: string; rows: number | string }>`
    select p.relname as parent, c.relname as child, c.reltuples as rows from pg_inherits i
      join pg_class p on p.oid = i.inhparent join pg_class c on c.oid = i.inhrelid
     where p.relnamespace = current_schema()::regnamespace and p.relkind = 'p'
       ${table === undefined ? sql`` : sql`and p.relname = ${table}`}`.execute(db);
  const out: DayPartition[] = [];
  for (const row of r.rows) {
    const day = partitionDay(row.child);
    if (day !== null && row.child === partitionName(row.parent, day)) out.push({ parent: row.parent, name: row.child, day, rows: Number(row.rows) });
  }
  return out;
}

/** The days (UTC midnight, ms) that have a partition, per table, read from the catalog of the current schema. */
export async function listPartitionDays(db: Kysely<any>): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>(PARTITIONED_TABLES.map((t) => [t.name, new Set<number>()]));
  if (dialectOf(db) !== 'postgres') return out;
  for (const p of await dayPartitions(db)) out.get(p.parent)?.add(p.day);
  return out;
}

/** Makes the partitions of the days from `now`'s to `aheadDays` later that are missing; returns how many.
 * A day whose rows already sit in the default partition (a new database's first day, mail accepted before
 * the first run) is left there: moving rows that deliveries are updating that very moment held their
 * outcome commits up for tens of seconds (bench:workers, 4 workers), and a partition cannot be attached
 * while such rows keep arriving anyway. Those rows are purged by rows, like the default's others. */
export async function createPartitionsAhead(db: Kysely<any>, now: number, aheadDays = PARTITIONS_AHEAD_DAYS): Promise<number> {
  return createPartitionsBetween(db, now, now + aheadDays * PARTITION_DAY_MS, { moveStrays: false });
}

/** Makes the missing partitions of every day from `from`'s to `to`'s (also used by benchmarks that load
 * past days). Rows of such a day already in the default partition are moved into the new one. */
export async function createPartitionsBetween(db: Kysely<any>, from: number, to: number, { moveStrays = true } = {}): Promise<number> {
  if (dialectOf(db) !== 'postgres') return 0;
  const have = await listPartitionDays(db);
  let made = 0;
  for (let day = dayStart(from); day <= dayStart(to); day += PARTITION_DAY_MS) {
    for (const t of PARTITIONED_TABLES) {
      if (have.get(t.name)!.has(day)) continue;
      const done = await db.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
        return createPartition(trx, t.name, t.key, day, moveStrays);
      });
      if (done) made++;
    }
  }
  return made;
}

async function createPartition(trx: Kysely<any>, table: string, key: string, day: number, moveStrays: boolean): Promise<boolean> {
  const name = sql.id(partitionName(table, day));
  const lo = sql.lit(idBound(day));
  const hi = sql.lit(idBound(day + PARTITION_DAY_MS));
  const def = sql.id(`${table}_default`);
  const inRange = sql`${sql.ref(key)} >= ${lo} and ${sql.ref(key)} < ${hi}`;
  const stray = await sql`select 1 from ${def} where ${inRange} limit 1`.execute(trx);
  if (stray.rows.length === 0) {
    await sql`create table ${name} partition of ${sql.table(table)} for values from (${lo}) to (${hi})`.execute(trx);
    return true;
  }
  if (!moveStrays) return false;
  // Rows of that day already sit in the default partition (the task did not run in time, or a clock was
  // set back): PostgreSQL refuses a new partition while the default holds rows of its range, so they move.
  await sql`create table ${name} (like ${sql.table(table)} including defaults including constraints)`.execute(trx);
  await sql`with moved as (delete from ${def} where ${inRange} returning *) insert into ${name} select * from moved`.execute(trx);
  await sql`alter table ${sql.table(table)} attach partition ${name} for values from (${lo}) to (${hi})`.execute(trx);
  return true;
}

/** Drops every day partition whose whole day is older than `before` (its end at or before it), the same day
 * of every table in one transaction; returns the days dropped. The default partition is never dropped. */
export async function dropPartitionsBefore(db: Kysely<any>, before: number): Promise<number[]> {
  if (dialectOf(db) !== 'postgres') return [];
  const have = await listPartitionDays(db);
  const days = new Set<number>();
  for (const set of have.values()) for (const day of set) if (day + PARTITION_DAY_MS <= before) days.add(day);
  const dropped: number[] = [];
  for (const day of [...days].sort((a, b) => a - b)) {
    await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
      // A drop fires no trigger: the day's messages leave the Mailpit figures here (migration 0038).
      if (have.get('messages')!.has(day)) await subtractDayPartition(trx, partitionName('messages', day), idBound(day), idBound(day + PARTITION_DAY_MS));
      for (const t of PARTITIONED_TABLES) {
        if (have.get(t.name)!.has(day)) await sql`drop table ${sql.id(partitionName(t.name, day))}`.execute(trx);
      }
    });
    dropped.push(day);
  }
  return dropped;
}

/**
 * Where the row purge of one server stops. On PostgreSQL the servers with the longest retention lose their
 * messages with the day partitions (dropPartitionsBefore): deleting their rows as they expire would leave
 * the partitions empty by the time they are dropped, and the whole point is not to delete rows. So their
 * cutoff is rounded down to the start of its day, and only rows outside the dropped partitions (in the
 * default partition) are deleted by rows. Servers with a shorter retention are purged row by row, exactly.
 * SQLite: always exact.
 */
export function rowPurgeCutoff(db: Kysely<any>, cutoff: number, longestRetention: boolean): number {
  return dialectOf(db) === 'postgres' && longestRetention ? dayStart(cutoff) : cutoff;
}
