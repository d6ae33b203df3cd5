// How a statement that reads mailpit_state beside messages is planned. PostgreSQL: both tables have the same
// day partitions (ranged by message id).
// - A statement that joins the state in its search (is:read, is:unread, is:tagged or tag:, filters.ts
//   needsState) is planned partition by partition: each day's matches read in time order from its index
//   and their state looked up in that day's mailpit_state by primary key, the days merged in order, stopping
//   at the LIMIT. Planned over the parents, the state of every message of every day was hash-joined before
//   the first row (the whole of mailpit_state read per request).
// - A count window's read flags (stateOfWindow) are looked up row by row, each probe pruned to its day's
//   partition when it runs: a join of the window with the parent is planned as a hash of the whole of
//   mailpit_state, whether the window holds a few messages or thousands.
// Such a probe is costed as if it read every partition, so a window of thousands of rows looks large enough
// to the planner to compile (JIT), which cost seconds where the statement itself runs in milliseconds: JIT is
// off for these statements. SQLite has no partitions: nothing changes there.
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { AppContext } from '../app-context.js';

/** Runs `run` (statements on ctx.db, inside the read's transaction) planned as above. */
export async function joiningStatePerPartition<T>(ctx: Pick<AppContext, 'db' | 'database'>, joined: boolean, run: () => Promise<T>): Promise<T> {
  if (!ctx.database.sql.partitionedByDay) return run();
  // SET LOCAL: the read's transaction only. The partitionwise join is set back after, so the other
  // statements of the read (text terms' semi-joins with message_recipients) keep their plans; JIT stays off
  // to the end of the read. Not set back when a statement failed: the transaction is aborted (and the
  // setting with it), and the failure (a time limit) is the answer.
  if (!joined) {
    await sql`set local jit = off`.execute(ctx.db);
    return run();
  }
  await sql`select set_config('jit', 'off', true), set_config('enable_partitionwise_join', 'on', true)`.execute(ctx.db);
  const out = await run();
  await sql`set local enable_partitionwise_join = off`.execute(ctx.db);
  return out;
}

/**
 * `select v.id, v.received_at, r` for the window `v` (its ids and received_at), r its read flag (0 without
 * state). Run it inside joiningStatePerPartition.
 */
export function stateOfWindow(ctx: Pick<AppContext, 'database'>, window: Expression<unknown>): RawBuilder<{ id: string; received_at: number; r: number }> {
  // message_id is mailpit_state's key: the LIMIT only tells the planner that a probe finds one row at most.
  if (ctx.database.sql.partitionedByDay) {
    return sql`select v.id, v.received_at, coalesce(st.read, 0) as r from (${window}) as v
      left join lateral (select s1.read from mailpit_state s1 where s1.message_id = v.id limit 1) as st on true`;
  }
  return sql`select v.id, v.received_at, coalesce(st.read, 0) as r from (${window}) as v
    left join mailpit_state st on st.message_id = v.id`;
}

/**
 * The state of the walked message (`messages`), as `s`, for a left join lateral on PostgreSQL: one probe by
 * primary key per message, pruned to its day when it runs. Planned once over the parent (~10 ms at 48 days,
 * against ~35 ms for the join partition by partition), it suits a walk that stops after a page.
 */
export function stateProbe(ctx: Pick<AppContext, 'db'>) {
  return ctx.db.selectFrom('mailpit_state as s1').select(['s1.read', 's1.tags']).whereRef('s1.message_id', '=', 'messages.id' as any).limit(1).as('s');
}
