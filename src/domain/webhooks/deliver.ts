// The worker side of webhooks: one job per notification. Each attempt is a signed POST; its outcome (the
// attempt row, the notification's state and the job's next run) is recorded in one transaction. Failures
// are retried on the published schedule from the stored attempt count, 403 stops at once, and after the
// last attempt the notification is failed. A crash between the POST and the commit repeats the attempt
// (at least once; receivers drop duplicates by X-Mailroom-Notification-Id).
import type { AppContext } from '../app-context.js';
import { fromJson } from '../../infra/db/util.js';
import { completeJob } from '../../infra/jobs/complete.js';
import { rescheduleJob } from '../../infra/jobs/reschedule.js';
import type { JobHandler } from '../../infra/jobs/runner.js';
import type { Job } from '../../infra/jobs/types.js';
import { createPoster, type PostResult } from './http-post.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_QUEUE, WEBHOOK_RETRY_SCHEDULE, type WebhookJobPayload } from './queue.js';
import { HEADER, signatureHeader } from './signature.js';

export interface WebhookWorkerOptions {
  /** Deadline for one whole attempt (connect, send, answer). */
  timeoutMs?: number;
  /** Attempts in flight per worker process, all webhooks together. */
  concurrency?: number;
  /** Attempts in flight per webhook per worker process: one slow target cannot take every slot. */
  perWebhook?: number;
}

/** Defaults: attempts in flight per worker process, and per webhook (per target) within them. */
export const DEFAULT_CONCURRENCY = 64;
export const DEFAULT_PER_WEBHOOK = 16;

export type Outcome = 'delivered' | 'retrying' | 'failed';

/** What an attempt's result means for the notification. */
export function outcomeOf(r: PostResult, attempt: number): Outcome {
  if (r.status !== null && r.status >= 200 && r.status < 300) return 'delivered';
  if (r.status === 403 || r.permanent) return 'failed';
  return attempt >= WEBHOOK_MAX_ATTEMPTS ? 'failed' : 'retrying';
}

interface NotificationRow {
  id: number;
  event_id: number;
  payload: string;
  http_auth_user: string;
  http_auth_password: string;
  headers: string;
  signing_secret: string;
  previous_signing_secret: string;
  previous_secret_until: number | null;
}

export function webhookHandler(ctx: AppContext, o: WebhookWorkerOptions = {}): JobHandler & { close(): void } {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const perWebhook = o.perWebhook ?? DEFAULT_PER_WEBHOOK;
  const poster = createPoster(ctx, perWebhook);
  const log = ctx.logger.child({ component: 'webhooks' });
  const writer = createOutcomeWriter(ctx);

  /** Basic auth, the configured headers, then mailroom's own (ids, attempt, timestamp, signatures). */
  function requestHeaders(n: NotificationRow, attempt: number, startedAt: number): Record<string, string> {
    const timestamp = Math.floor(startedAt / 1000);
    // Within the grace period after a rotation, the old secret signs too.
    const graced = n.previous_signing_secret !== '' && (n.previous_secret_until ?? 0) > startedAt;
    const secrets = graced ? [n.signing_secret, n.previous_signing_secret] : [n.signing_secret];
    const headers: Record<string, string> = {};
    for (const h of fromJson<Array<{ Name: string; Value: string }>>(n.headers, [])) headers[h.Name] = h.Value;
    if (n.http_auth_user || n.http_auth_password) {
      const password = n.http_auth_password ? ctx.secrets.open(n.http_auth_password) : '';
      headers.Authorization = `Basic ${Buffer.from(`${n.http_auth_user}:${password}`).toString('base64')}`;
    }
    Object.assign(headers, {
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': 'mailroom-webhooks/1',
      [HEADER.eventId]: String(n.event_id),
      [HEADER.notificationId]: String(n.id),
      [HEADER.attempt]: String(attempt),
      [HEADER.timestamp]: String(timestamp),
      [HEADER.signature]: secrets.map((sealed) => signatureHeader(ctx.secrets.open(sealed), timestamp, n.payload)).join(','),
    });
    return headers;
  }

  async function handle(job: Job): Promise<void> {
    const { notificationId } = JSON.parse(job.payload) as WebhookJobPayload;
    const n = await ctx.db
      .selectFrom('webhook_notifications as n')
      .innerJoin('webhooks as w', 'w.id', 'n.webhook_id')
      .select(['n.id', 'n.webhook_id', 'n.event_id', 'n.payload', 'n.status', 'n.attempts', 'w.url', 'w.http_auth_user', 'w.http_auth_password', 'w.headers', 'w.signing_secret', 'w.previous_signing_secret', 'w.previous_secret_until'])
      .where('n.id', '=', notificationId)
      .executeTakeFirst();
    // Webhook deleted (its notifications went with it) or already settled by an earlier run of this job.
    if (!n || n.status !== 'pending') {
      await completeJob(ctx.db, job.id);
      return;
    }
    const attempt = n.attempts + 1;
    const startedAt = ctx.clock.now();
    let r: PostResult;
    try {
      r = await poster.post(n.url, requestHeaders(n, attempt, startedAt), n.payload, timeoutMs);
    } catch (err) {
      // The sealed secrets do not open (MAILROOM_SECRET_KEY changed): no attempt can succeed.
      r = { status: null, error: `cannot sign the request: ${(err as Error).message}`, durationMs: 0, permanent: true };
    }
    const outcome = outcomeOf(r, attempt);
    const now = ctx.clock.now();
    const nextAt = outcome === 'retrying' ? now + WEBHOOK_RETRY_SCHEDULE[attempt - 1] : null;
    // One line per webhook attempt (docs/operations.md, "Logs"); the URL is left out: it may carry credentials.
    const line = { event: 'webhook', webhookId: n.webhook_id, notificationId: n.id, attempt, status: r.status, outcome, durationMs: r.durationMs };
    if (outcome === 'delivered') log.info(line, 'webhook attempt');
    else log.warn({ ...line, err: r.error, retryInMs: nextAt === null ? null : nextAt - now }, 'webhook attempt failed');
    ctx.metrics.webhookDeliveries.inc({ outcome: outcome === 'retrying' ? 'retry' : outcome });

    await writer.submit(async (trx) => {
      // Guarded by the attempt count: if this job's lease ran out and another worker took it over, the
      // other worker records the outcome.
      const res = await trx
        .updateTable('webhook_notifications')
        .set({
          status: outcome === 'retrying' ? 'pending' : outcome,
          attempts: attempt,
          last_status_code: r.status,
          last_error: r.error === null ? null : r.error.slice(0, 1000),
          last_attempt_at: startedAt,
          next_attempt_at: nextAt,
          completed_at: outcome === 'retrying' ? null : now,
        })
        .where('id', '=', n.id)
        .where('status', '=', 'pending')
        .where('attempts', '=', n.attempts)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return;
      await trx
        .insertInto('webhook_attempts')
        .values({
          notification_id: n.id,
          webhook_id: n.webhook_id,
          event_id: n.event_id,
          attempt,
          outcome,
          status_code: r.status,
          error: r.error === null ? null : r.error.slice(0, 1000),
          started_at: startedAt,
          duration_ms: r.durationMs,
        })
        .execute();
      if (nextAt !== null) await rescheduleJob(trx, job.id, nextAt, r.error);
      else await completeJob(trx, job.id);
    });
  }

  return {
    queue: WEBHOOK_QUEUE,
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
    groupConcurrency: perWebhook,
    leaseMs: timeoutMs + 60_000,
    handle,
    close: () => poster.close(),
  };
}

/** Settled notifications (and their attempts) are kept this long for GET /webhooks/{id}/deliveries. */
export const NOTIFICATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export async function purgeNotifications(ctx: AppContext, now: number): Promise<void> {
  const cutoff = now - NOTIFICATION_RETENTION_MS;
  await ctx.db.deleteFrom('webhook_attempts').where('notification_id', 'in', (eb) => eb.selectFrom('webhook_notifications').select('id').where('completed_at', '<', cutoff)).execute();
  await ctx.db.deleteFrom('webhook_notifications').where('completed_at', '<', cutoff).execute();
}
