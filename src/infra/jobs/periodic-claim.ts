import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Claims this period's run of a periodic task for the calling process. Every worker asks; the conditional
 * update lets exactly one of them move `next_run_at` past now, on SQLite and PostgreSQL alike (an UPDATE's
 * WHERE is re-checked against the committed row, so two claimers cannot both match). Returns true for the
 * winner, who then runs the task. A winner that dies mid-run leaves the task to the next period: tasks are
 * idempotent and resume where the last run stopped.
 */
export async function claimPeriodicRun(db: Kysely<Database>, name: string, everyMs: number, now: number): Promise<boolean> {
  await db
    .insertInto('periodic_tasks')
    .values({ name, next_run_at: 0, last_started_at: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const r = await db
    .updateTable('periodic_tasks')
    .set({ next_run_at: now + everyMs, last_started_at: now })
    .where('name', '=', name)
    .where('next_run_at', '<=', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
