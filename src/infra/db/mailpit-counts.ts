// The Mailpit inbox figures kept by the triggers of migrations 0038 and 0040: read (a sum over a server's rows), compacted
// (PostgreSQL: each connection's own rows folded into slot 0; both: rows summing to nothing removed), and
// subtracted for a day partition about to be dropped, which fires no trigger.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from './util.js';

export interface MailpitCounts {
  total: number;
  unread: number;
  /** Every tag carried by at least one message, with how many, in the spelling it was stored with. */
  tags: Array<{ tag: string; n: number }>;
  /** Rows read: many more than figures means a compaction is due. */
  rows: number;
}

/** A server's figures: one indexed read of its rows (primary key prefix). */
export async function readMailpitCounts(db: Kysely<any>, serverId: number): Promise<MailpitCounts> {
  const { rows } = await sql<{ tag: string; n: number | string; unread: number | string; k: number | string }>`
    select tag, sum(n) as n, sum(unread) as unread, count(*) as k from mailpit_counts where server_id = ${serverId} group by tag`.execute(db);
  const out: MailpitCounts = { total: 0, unread: 0, tags: [], rows: 0 };
  for (const r of rows) {
    out.rows += Number(r.k);
    if (r.tag === '') {
      out.total = Number(r.n);
      out.unread = Number(r.unread);
    } else if (Number(r.n) > 0) out.tags.push({ tag: r.tag, n: Number(r.n) });
  }
  return out;
}

/**
 * How many of a server's messages carry `lowered` (a tag already lowercase, not empty) whatever its case,
 * and how many of those are unread (migration 0040): a sum over the server's rows (primary key prefix).
 * lower() is the one tag: reads through tagged() and foldedTagEquals(), so both fold the same characters.
 */
export async function readTagCounts(db: Kysely<any>, serverId: number, lowered: string): Promise<{ n: number; unread: number }> {
  const { rows } = await sql<{ n: number | string | null; unread: number | string | null }>`
    select sum(n) as n, sum(unread) as unread from mailpit_counts where server_id = ${serverId} and tag <> '' and lower(tag) = ${lowered}`.execute(db);
  return { n: Number(rows[0]?.n ?? 0), unread: Number(rows[0]?.unread ?? 0) };
}

/** Whether the server's rows are enough more than its figures to fold them. */
export const compactionDue = (c: MailpitCounts) => c.rows > 64 + 2 * (c.tags.length + 1);

/**
 * Folds a server's rows. PostgreSQL: the rows of other slots that no transaction is writing (SKIP LOCKED:
 * a compaction never waits on a writer, so it cannot deadlock with one) move into slot 0, which only
 * compactions write, one at a time per server (an advisory lock); then slot 0's empty rows go. SQLite has
 * slot 0 only: its empty rows go.
 */
export async function compactMailpitCounts(db: Kysely<any>, serverId: number): Promise<void> {
  if (dialectOf(db) !== 'postgres') {
    await sql`delete from mailpit_counts where server_id = ${serverId} and n = 0 and unread = 0`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(7262734)}, ${serverId})`.execute(trx);
    await sql`with moving as (
        select tag, slot from mailpit_counts where server_id = ${serverId} and slot <> 0 for update skip locked
      ), moved as (
        delete from mailpit_counts c using moving where c.server_id = ${serverId} and c.tag = moving.tag and c.slot = moving.slot returning c.tag, c.n, c.unread
      )
      insert into mailpit_counts (server_id, tag, slot, n, unread)
        select ${serverId}, tag, 0, sum(n), sum(unread) from moved group by tag
      on conflict (server_id, tag, slot) do update set n = mailpit_counts.n + excluded.n, unread = mailpit_counts.unread + excluded.unread`.execute(trx);
    await sql`delete from mailpit_counts where server_id = ${serverId} and slot = 0 and n = 0 and unread = 0`.execute(trx);
  });
}

/**
 * PostgreSQL, inside the transaction that drops the day partition `messagesPart` (ids from `lo` to before
 * `hi`): subtracts its messages' figures, with their state wherever it lies. Both parents are locked first (as
 * the drops lock them), so no write to that day slips between the subtraction and the drop.
 */
export async function subtractDayPartition(trx: Kysely<any>, messagesPart: string, lo: string, hi: string): Promise<void> {
  await sql`lock table messages, mailpit_state in access exclusive mode`.execute(trx);
  const m = sql.id(messagesPart);
  const state = sql`(select * from mailpit_state where message_id >= ${lo} and message_id < ${hi})`;
  await sql`insert into mailpit_counts (server_id, tag, slot, n, unread)
    select server_id, tag, pg_backend_pid(), -sum(n), -sum(unread) from (
      select m.server_id, '' as tag, 1 as n, 1 - coalesce(s.read, 0) as unread from ${m} m left join ${state} s on s.message_id = m.id where m.sandbox = 1
      union all
      select m.server_id, m.tag, 1, 1 - coalesce(s.read, 0) from ${m} m left join ${state} s on s.message_id = m.id where m.sandbox = 1 and s.tags is null and coalesce(m.tag, '') <> ''
      union all
      select m.server_id, j.t, 1, 1 - s.read from ${m} m join ${state} s on s.message_id = m.id cross join lateral json_array_elements_text(s.tags::json) as j(t) where m.sandbox = 1 and s.tags is not null and j.t <> ''
    ) x group by server_id, tag
    on conflict (server_id, tag, slot) do update set n = mailpit_counts.n + excluded.n, unread = mailpit_counts.unread + excluded.unread`.execute(trx);
}
