// The destinations failing right now, as the queue sees them (`mailroom status`): jobs that failed at least
// once carry the remote's last reply in last_error; they are grouped by queue and group key (the recipient
// domain for deliveries).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

export interface FailingGroup {
  queue: string;
  /** The jobs' group key; '-' for jobs without one. */
  destination: string;
  jobs: number;
  /** The most attempts of one job of the group. */
  attempts: number;
  /** The last error of the group's newest failing job, cut to 200 characters. */
  lastError: string;
}

/** The `limit` groups with the most failing jobs, read from the newest `scan` failing jobs (a bounded read). */
export async function failingGroups(db: Kysely<Database>, limit = 20, scan = 5000): Promise<FailingGroup[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['queue', 'group_key', 'attempts', 'last_error', 'id'])
    .where('last_error', 'is not', null)
    .orderBy('id', 'desc')
    .limit(scan)
    .execute();
  const byGroup = new Map<string, FailingGroup>();
  for (const r of rows) {
    const key = `${r.queue}|${r.group_key ?? ''}`;
    const g = byGroup.get(key);
    if (g) {
      g.jobs++;
      g.attempts = Math.max(g.attempts, r.attempts);
    } else byGroup.set(key, { queue: r.queue, destination: r.group_key ?? '-', jobs: 1, attempts: r.attempts, lastError: (r.last_error ?? '').slice(0, 200) });
  }
  return [...byGroup.values()].sort((a, b) => b.jobs - a.jobs).slice(0, limit);
}
