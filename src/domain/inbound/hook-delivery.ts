// The worker side of inbound processing: one 'inbound-hook' job per message, POSTed to the server's
// InboundHookUrl through the webhook machinery (the same address guard and poster, HTTP basic auth from
// the URL's user:password, the same retry schedule and the rule that a 403 stops retrying). Each attempt
// is recorded (inbound_attempts, with the first 512 bytes of the answer whatever its status) with the
// message's new status and the job's next run in one group commit.
// Once the application has the message, its attachment content and raw source are dropped.
import type { AppContext } from '../app-context.js';
import { createGroupCommit } from '../../infra/db/group-commit.js';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { InboundAttemptsTable, InboundMessagesTable } from '../../infra/db/tables/inbound.js';
import { completeJob, completeJobs } from '../../infra/jobs/complete.js';
import { rescheduleJob } from '../../infra/jobs/reschedule.js';
import type { JobHandler } from '../../infra/jobs/runner.js';
import type { Job } from '../../infra/jobs/types.js';
import { hookUrlWithPassword } from '../servers/inbound-hook-secret.js';
import { outcomeOf } from '../webhooks/deliver.js';
import { createPoster, type PostResult } from '../webhooks/http-post.js';
import { WEBHOOK_RETRY_SCHEDULE } from '../webhooks/queue.js';
import { INBOUND_HOOK_QUEUE, INBOUND_STATUS, type InboundHookHandover, type InboundHookJobPayload } from './hook-queue.js';
import { PoolFull, taskModule } from '../../infra/threads/pool.js';
import { strippedPayload } from './content-task.js';

const CONTENT_TASK = taskModule(import.meta.url, 'content-task');

/** One attempt's outcome, written with others of the same moment in one transaction (writeOutcomes). */
interface HookOutcome {
  inboundId: string;
  /** The attempt count the job read: the update is guarded by it. */
  attemptsBefore: number;
  set: Updateable<InboundMessagesTable>;
  attempt: Insertable<InboundAttemptsTable>;
  jobId: number;
  /** The job's next run, or null when it is done. */
  nextAt: number | null;
  error: string | null;
}

/**
 * Each message's new state, guarded by the attempt count (a job taken over after its lease ran out records
 * its own outcome), then the attempts of the messages updated and the finished jobs, one statement each for
 * the group (a statement per message made three round trips per message on PostgreSQL).
 */
async function writeOutcomes(trx: Kysely<Database>, outcomes: HookOutcome[]): Promise<void> {
  const attempts: Array<Insertable<InboundAttemptsTable>> = [];
  const done: number[] = [];
  for (const o of outcomes) {
    const res = await trx
      .updateTable('inbound_messages')
      .set(o.set)
      .where('id', '=', o.inboundId)
      .where('attempts', '=', o.attemptsBefore)
      .where('status', 'in', [INBOUND_STATUS.queued, INBOUND_STATUS.scheduled])
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) attempts.push(o.attempt);
    if (o.nextAt !== null) await rescheduleJob(trx, o.jobId, o.nextAt, o.error);
    else done.push(o.jobId);
  }
  for (let i = 0; i < attempts.length; i += 200) await trx.insertInto('inbound_attempts').values(attempts.slice(i, i + 200)).execute();
  await completeJobs(trx, done);
}

export interface InboundHookOptions {
  timeoutMs?: number;
  concurrency?: number;
  /** Posts in flight per server (per application). */
  perServer?: number;
}

/** Request headers beside the body; the body is the exact JSON stored at intake. */
function requestHeaders(inboundId: string, attempt: number, startedAt: number): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': 'mailroom-inbound/1',
    'X-Mailroom-Inbound-Id': inboundId,
    'X-Mailroom-Attempt': String(attempt),
    'X-Mailroom-Timestamp': String(Math.floor(startedAt / 1000)),
  };
}

export function inboundHookHandler(ctx: AppContext, o: InboundHookOptions = {}): JobHandler<InboundHookHandover> & { close(): Promise<void> } {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const perServer = o.perServer ?? 16;
  const poster = createPoster(ctx, perServer, { credentialsInUrl: true });
  const log = ctx.logger.child({ component: 'inbound-hook' });
  // The WAL's sync holds the rewritten payload: under SQLite it runs off the event loop (group-commit.ts).
  const writer = createGroupCommit<HookOutcome>(ctx, {
    name: 'inbound hook outcomes',
    maxWeight: 200,
    commit: (trx, outcomes) => writeOutcomes(trx, outcomes),
  });

  /** The message as a claimed job reads it; null when it is gone (a retention purge, its server deleted). */
  const read = (inboundId: string) =>
    ctx.db
      .selectFrom('inbound_messages as m')
      .innerJoin('servers as s', 's.id', 'm.server_id')
      .select(['m.id', 'm.status', 'm.attempts', 'm.payload', 's.inbound_hook_url', 's.inbound_hook_password'])
      .where('m.id', '=', inboundId)
      .executeTakeFirst();

  /** A handed-over message: its payload as intake stored it, its server's hook as it is now. */
  const fromHandover = async (inboundId: string, h: InboundHookHandover) => {
    const s = await ctx.db.selectFrom('servers').select(['inbound_hook_url', 'inbound_hook_password']).where('id', '=', h.serverId).executeTakeFirst();
    return s && { id: inboundId, status: INBOUND_STATUS.queued as string, attempts: 0, payload: h.payload, ...s };
  };

  async function handle(job: Job, release: () => void, h?: InboundHookHandover): Promise<void> {
    const { inboundId } = JSON.parse(job.payload) as InboundHookJobPayload;
    // Handed over by intake just after its commit: the message is as intake wrote it (Queued, no attempt
    // yet), so it is not read back. Should anything have changed it since, the outcome's write is guarded by
    // the attempt count and the status (writeOutcomes) and changes nothing.
    const m = h ? await fromHandover(inboundId, h) : await read(inboundId);
    // Deleted (retention) or settled by an earlier run of this job.
    if (!m || (m.status !== INBOUND_STATUS.queued && m.status !== INBOUND_STATUS.scheduled)) {
      await completeJob(ctx.db, job.id);
      return;
    }
    const attempt = m.attempts + 1;
    const startedAt = ctx.clock.now();
    const r: PostResult = m.inbound_hook_url
      ? await poster.post(hookUrlWithPassword(ctx.secrets, m), requestHeaders(m.id, attempt, startedAt), m.payload, timeoutMs)
      : { status: null, error: 'the server has no InboundHookUrl', durationMs: 0, permanent: true };
    // The post is over: the server's slot (perServer posts in flight) goes to its next message now, while this
    // job, holding its queue slot and its lease until it settles, strips the payload and commits its outcome.
    release();
    const outcome = outcomeOf(r, attempt);
    const now = ctx.clock.now();
    const nextAt = outcome === 'retrying' ? now + WEBHOOK_RETRY_SCHEDULE[attempt - 1] : null;
    if (outcome !== 'delivered') log.info({ inboundId: m.id, attempt, status: r.status, err: r.error, outcome }, 'inbound hook attempt failed');
    const error = r.error === null ? null : r.error.slice(0, 1000);
    const status = outcome === 'delivered' ? INBOUND_STATUS.processed : outcome === 'retrying' ? INBOUND_STATUS.scheduled : INBOUND_STATUS.failed;

    // Off the event loop; inline only when every parser thread is busy and the queue full.
    const stripped = outcome === 'delivered' ? await ctx.threads.run<string>(CONTENT_TASK, 'strippedPayload', m.payload).catch((err: unknown) => {
      if (err instanceof PoolFull) return strippedPayload(m.payload);
      throw err;
    }) : null;
    await writer.submit({
      inboundId: m.id,
      attemptsBefore: m.attempts,
      set: { status, attempts: attempt, last_error: error, processed_at: outcome === 'delivered' ? now : null, ...(stripped !== null ? { payload: stripped } : {}) },
      attempt: { inbound_id: m.id, attempt, outcome, status_code: r.status, error, started_at: startedAt, duration_ms: r.durationMs, response_excerpt: r.body ?? null },
      jobId: job.id,
      nextAt,
      error: r.error,
    });
  }

  return {
    queue: INBOUND_HOOK_QUEUE,
    concurrency: o.concurrency ?? 64,
    groupConcurrency: perServer,
    leaseMs: timeoutMs + 60_000,
    handle,
    close: async () => {
      poster.close();
      await writer.close();
    },
  };
}
