// The job that announces a new Sandbox message to MAILROOM_MAILPIT_WEBHOOK_URL (Mailpit's MP_WEBHOOK_URL),
// stored by storeMessages in the transaction that stores the message: the announcement exists exactly when
// the message does, and the accepting path waits for no HTTP (domain/mailpit/webhook.ts posts it).
import type { NewJob } from '../../infra/jobs/enqueue.js';

export const MAILPIT_WEBHOOK_QUEUE = 'mailpit-webhook';

export interface MailpitWebhookPayload {
  messageId: string;
  serverId: number;
}

export function mailpitWebhookJob(messageId: string, serverId: number, runAt: number): NewJob {
  return { queue: MAILPIT_WEBHOOK_QUEUE, payload: { messageId, serverId } satisfies MailpitWebhookPayload, runAt, messageId };
}
