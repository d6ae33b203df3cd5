// Mailpit's webhook (MP_WEBHOOK_URL): each new Sandbox message's summary, in the shape of Mailpit's message
// list entry (view.ts listItem), POSTed as JSON to MAILROOM_MAILPIT_WEBHOOK_URL. The job is stored with the
// message (accepting/mailpit-webhook-job.ts); a failed POST (no answer, a non-2xx status, the time limit)
// is retried on DEFAULT_SCHEDULE. The URL is the operator's own setting, so it may name a private or
// loopback address (a CI service beside the test inbox), unlike the API's webhooks.
import type { AppContext } from '../app-context.js';
import { MAILPIT_WEBHOOK_QUEUE, type MailpitWebhookPayload } from '../accepting/mailpit-webhook-job.js';
import { completeJob } from '../../infra/jobs/complete.js';
import { DEFAULT_SCHEDULE } from '../../infra/jobs/backoff.js';
import type { JobHandler } from '../../infra/jobs/runner.js';
import type { Job } from '../../infra/jobs/types.js';
import { createPoster } from '../webhooks/http-post.js';
import { listItem, loadMessages } from './view.js';

/** The longest one POST may take, answer included. */
export const MAILPIT_WEBHOOK_TIMEOUT_MS = 10_000;

export function mailpitWebhookHandler(ctx: AppContext): JobHandler & { close(): void } {
  const poster = createPoster({ ...ctx, config: { ...ctx.config, webhookAllowPrivate: true } }, 4, { credentialsInUrl: true });
  return {
    queue: MAILPIT_WEBHOOK_QUEUE,
    concurrency: 4,
    schedule: DEFAULT_SCHEDULE,
    maxAttempts: DEFAULT_SCHEDULE.length + 1,
    async handle(job: Job) {
      const url = ctx.config.mailpitWebhookUrl;
      const p = JSON.parse(job.payload) as MailpitWebhookPayload;
      const [m] = url ? await loadMessages(ctx, { id: p.serverId, accountId: 0, sandbox: true }, [p.messageId]) : [];
      // Unset since the message came, or the message deleted before its turn: nothing to announce.
      if (url && m) {
        const r = await poster.post(url, { 'content-type': 'application/json', 'user-agent': 'mailroom' }, JSON.stringify(listItem(ctx, m)), MAILPIT_WEBHOOK_TIMEOUT_MS);
        if (r.status === null || r.status < 200 || r.status >= 300) throw new Error(`Mailpit webhook ${r.error ?? `HTTP ${r.status}`}`);
      }
      await completeJob(ctx.db, job.id);
    },
    async onGiveUp(job: Job, error: unknown) {
      ctx.logger.warn({ jobId: job.id, err: (error as Error).message }, 'Mailpit webhook given up');
    },
    close: () => poster.close(),
  };
}

/** Worker-role registration (src/worker.ts). */
export function registerMailpitWebhook(ctx: AppContext): () => Promise<void> {
  const handler = mailpitWebhookHandler(ctx);
  ctx.runner.register(handler);
  return async () => handler.close();
}
