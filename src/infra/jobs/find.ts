import { sql, type Expression, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Job } from './types.js';

/** The queued jobs that concern these messages (jobs.message_id), oldest first; optionally of one queue. */
export async function findJobsOfMessages(db: Kysely<Database>, messageIds: readonly string[], queue?: string): Promise<Job[]> {
  const out: Job[] = [];
  for (let i = 0; i < messageIds.length; i += 500) {
    let q = db.selectFrom('jobs').selectAll().where('message_id', 'in', messageIds.slice(i, i + 500));
    if (queue !== undefined) q = q.where('queue', '=', queue);
    out.push(...((await q.execute()) as Job[]));
  }
  return out.sort((a, b) => a.id - b.id);
}

export interface ConcerningFilter {
  queue: string;
  /** Only jobs enqueued at or before this time. */
  createdAtMost: number;
  /**
   * A query correlated with the job's message id (given as an expression), typically on the messages
   * table: the job counts when it returns a row. It runs as EXISTS per queued job, so the cost follows the
   * queue's length, not the number of messages that would match.
   */
  message: (messageId: Expression<string>) => SelectQueryBuilder<Database, any, any>;
}

/** Whether any queued job of `queue` concerns a message that satisfies the filter (at most one row read). */
export async function hasJobConcerning(db: Kysely<Database>, f: ConcerningFilter): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('queue', '=', f.queue)
    .where('created_at', '<=', f.createdAtMost)
    .where('message_id', 'is not', null)
    .where((eb) => eb.exists(f.message(sql.ref<string>('jobs.message_id'))))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
