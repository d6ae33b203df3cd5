// Short leases kept alive by a heartbeat. A claimed job is leased for a short time (30 s for deliveries) and
// the runner renews the lease of every job it still runs every few seconds. A worker that dies stops renewing,
// so its jobs are claimed again within about one lease; a slow worker that lives keeps its jobs, so no other
// worker starts them a second time.
import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** Extends the leases this worker holds on `ids` to `until`; returns how many it still held. */
export async function renewLeases(database: Db, workerId: string, ids: number[], until: number): Promise<number> {
  if (ids.length === 0) return 0;
  const r = await database.db
    .updateTable('jobs')
    .set({ locked_until: until })
    .where('locked_by', '=', workerId)
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Hands back every job this worker still holds (a stop that ran out of time): others claim them at once. */
export async function releaseLeases(database: Db, workerId: string): Promise<number> {
  const r = await database.db.updateTable('jobs').set({ locked_by: null, locked_until: null }).where('locked_by', '=', workerId).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Records that this worker process is alive (the row `mailroom status` and /readyz read). */
export async function beat(database: Db, workerId: string, startedAt: number, now: number): Promise<void> {
  await database.db
    .insertInto('worker_heartbeats')
    .values({ worker_id: workerId, host: hostname(), pid: process.pid, started_at: startedAt, beat_at: now })
    .onConflict((oc) => oc.column('worker_id').doUpdateSet({ beat_at: now }))
    .execute();
}

/** A worker that stops cleanly removes its row; rows of killed workers age out (shown as stale, then purged). */
export async function forgetWorker(database: Db, workerId: string): Promise<void> {
  await database.db.deleteFrom('worker_heartbeats').where('worker_id', '=', workerId).execute();
}

/** Rows older than `before` are dropped, so the table stays as small as the fleet. */
export async function purgeStaleWorkers(database: Db, before: number): Promise<void> {
  await sql`delete from worker_heartbeats where beat_at < ${before}`.execute(database.db);
}
