// How a statement that joins messages to mailpit_state (a search with is:read, is:unread, is:tagged or tag:,
// filters.ts needsState) is planned. PostgreSQL: both tables have the same day partitions (ranged by message
// id), so the join is planned partition by partition: each day's matches read in time order from its index
// and their state looked up in that day's mailpit_state by primary key, the days merged in order, stopping at
// the LIMIT. Planned over the parents, the state of every message of every day was hash-joined before the
// first row (the whole of mailpit_state read per request), and a per-message probe of the parent pays
// run-time partition pruning per message, slower still. SQLite has no partitions: nothing changes there.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';

/** Runs `run` (statements on ctx.db, inside the read's transaction) with the join planned per partition. */
export async function joiningStatePerPartition<T>(ctx: Pick<AppContext, 'db' | 'database'>, joined: boolean, run: () => Promise<T>): Promise<T> {
  if (!joined || !ctx.database.sql.partitionedByDay) return run();
  // SET LOCAL: the read's transaction only, and set back after, so the other statements of the read (text
  // terms' semi-joins with message_recipients) keep their plans. Not set back when a statement failed: the
  // transaction is aborted (and the setting with it), and the failure (a time limit) is the answer.
  await sql`set local enable_partitionwise_join = on`.execute(ctx.db);
  const out = await run();
  await sql`set local enable_partitionwise_join = off`.execute(ctx.db);
  return out;
}
