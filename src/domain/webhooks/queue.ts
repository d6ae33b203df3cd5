// The 'webhook' queue: one job per notification, grouped per webhook so that one slow or dead target can
// hold only a few of the worker's slots (src/infra/jobs/runner.ts, groupConcurrency).
import type { NewJob } from '../../infra/jobs/enqueue.js';

export const WEBHOOK_QUEUE = 'webhook';

export interface WebhookJobPayload {
  notificationId: number;
}

export function webhookJob(notificationId: number, webhookId: number, runAt: number): NewJob {
  return { queue: WEBHOOK_QUEUE, payload: { notificationId } satisfies WebhookJobPayload, runAt, groupKey: `webhook:${webhookId}` };
}

const MIN = 60_000;
/**
 * Published retry schedule (docs/reference/webhooks.md, "Retries"): the delay after the n-th failed attempt.
 */
export const WEBHOOK_RETRY_SCHEDULE = [1, 5, 10, 10, 10, 15, 30, 60, 120, 360].map((m) => m * MIN);
/** The first attempt plus one retry per entry of the schedule. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE.length + 1;
