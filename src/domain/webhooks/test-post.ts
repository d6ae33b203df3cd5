// A test post of a webhook: a sample notification of one trigger, built by the same payload code as a real
// event's (payloads.ts) and sent by the same poster (http-post.ts: the address guard, no redirects, a hard
// deadline, the first bytes of the answer kept and the rest dropped), with the webhook's own basic auth,
// headers and signature, so what the receiver checks is what real deliveries will carry. Nothing is stored:
// it is not a notification, and the delivery log stays the log of real events.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import type { MessageEventType } from '../event-types.js';
import { fromJson } from '../../infra/db/util.js';
import { createPoster, type PostResult } from './http-post.js';
import { eventPayload } from './payloads.js';
import { HEADER, signatureHeader } from './signature.js';
import type { TriggerKey } from './triggers.js';
import type { WebhookRow } from './view.js';

/** Deadline of one test post: the operator waits for the page, so it is shorter than a delivery's. */
export const TEST_POST_TIMEOUT_MS = 8_000;

const EVENT_OF: Record<TriggerKey, MessageEventType> = {
  Delivery: 'Delivered',
  Bounce: 'Bounced',
  SpamComplaint: 'SpamComplaint',
  Open: 'Opened',
  Click: 'LinkClicked',
  SubscriptionChange: 'SubscriptionChanged',
};

const SAMPLE_DETAILS: Record<TriggerKey, Record<string, unknown>> = {
  Delivery: { DeliveryMessage: 'smtp;250 2.0.0 OK (test post from mailroom)' },
  Bounce: { BounceID: 0, Type: 'HardBounce', Summary: 'The server was unable to deliver your message (test post).', Details: 'smtp;550 5.1.1 The email account does not exist.' },
  SpamComplaint: { BounceID: 0, Summary: 'The recipient marked the message as spam (test post).', Details: 'Test post' },
  Open: { FirstOpen: true, Client: { Name: 'Chrome', Company: 'Google', Family: 'Chrome' }, OS: { Name: 'Linux', Company: '', Family: 'Linux' }, Platform: 'Desktop', UserAgent: 'Mozilla/5.0 (test post)', ReadSeconds: 5, Geo: {} },
  Click: { FirstOpen: false, Client: { Name: 'Chrome', Company: 'Google', Family: 'Chrome' }, OS: { Name: 'Linux', Company: '', Family: 'Linux' }, Platform: 'Desktop', UserAgent: 'Mozilla/5.0 (test post)', ClickLocation: 'HTML', OriginalLink: 'https://example.com/' },
  SubscriptionChange: { Origin: 'Recipient', SuppressSending: true, SuppressionReason: 'ManualSuppression' },
};

/** The sample notification body of one trigger, for this webhook's server and stream. */
export function samplePayload(row: WebhookRow, trigger: TriggerKey, now: number): string {
  const event = {
    id: 0,
    messageId: randomUUID(),
    serverId: row.server_id,
    streamId: row.stream_id,
    type: EVENT_OF[trigger],
    recipient: 'john@example.com',
    occurredAt: now,
    details: SAMPLE_DETAILS[trigger],
  };
  return JSON.stringify(eventPayload(event, { tag: 'test-post', metadata: { example: 'test post from mailroom' } }, undefined, false));
}

export interface TestPostResult extends PostResult {
  payload: string;
}

/** Posts the sample once and answers what came back (nothing is retried, nothing recorded). */
export async function sendWebhookTestPost(ctx: AppContext, row: WebhookRow, trigger: TriggerKey): Promise<TestPostResult> {
  const startedAt = ctx.clock.now();
  const payload = samplePayload(row, trigger, startedAt);
  const timestamp = Math.floor(startedAt / 1000);
  const headers: Record<string, string> = {};
  for (const h of fromJson<Array<{ Name: string; Value: string }>>(row.headers, [])) headers[h.Name] = h.Value;
  if (row.http_auth_user || row.http_auth_password) {
    const password = row.http_auth_password ? ctx.secrets.open(row.http_auth_password) : '';
    headers.Authorization = `Basic ${Buffer.from(`${row.http_auth_user}:${password}`).toString('base64')}`;
  }
  Object.assign(headers, {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': 'mailroom-webhooks/1',
    [HEADER.eventId]: '0',
    [HEADER.notificationId]: '0',
    [HEADER.attempt]: '1',
    [HEADER.timestamp]: String(timestamp),
    [HEADER.signature]: signatureHeader(ctx.secrets.open(row.signing_secret), timestamp, payload),
  });
  // A poster of its own, one socket, closed after: a test post leaves no connection behind.
  const poster = createPoster(ctx, 1);
  try {
    return { ...(await poster.post(row.url, headers, payload, TEST_POST_TIMEOUT_MS)), payload };
  } finally {
    poster.close();
  }
}
