// Shortcuts for webhook tests: a stored message to hang events on, events recorded the way the other areas
// record them (recordEvents in a transaction), and webhooks created through the API.
import { randomUUID } from 'node:crypto';
import { recordEvents } from '../../../src/domain/events/record.js';
import type { MessageEventInput, RecordedEvent } from '../../../src/domain/event-types.js';
import type { TestService } from '../../helpers/service.js';

export const ALL_TRIGGERS = {
  Open: { Enabled: true },
  Click: { Enabled: true },
  Delivery: { Enabled: true },
  Bounce: { Enabled: true },
  SpamComplaint: { Enabled: true },
  SubscriptionChange: { Enabled: true },
};

export async function insertMessage(
  s: TestService,
  o: { stream?: string; tag?: string | null; metadata?: Record<string, string>; to?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await s.ctx.db
    .insertInto('messages')
    .values({
      id,
      server_id: s.serverId,
      stream_id: o.stream ?? 'outbound',
      from_email: 'sender@example.com',
      from_raw: 'Sender <sender@example.com>',
      subject: 'Hello',
      tag: o.tag === undefined ? 'welcome' : o.tag,
      html_body: '<p>hi</p>',
      text_body: 'hi',
      reply_to: null,
      headers: '[]',
      metadata: JSON.stringify(o.metadata ?? { customer: 'c-1' }),
      track_opens: 1,
      track_links: 'HtmlAndText',
      attachments: '[]',
      status: 'Sent',
      received_at: s.clock.now(),
      mime: null,
    })
    .execute();
  await s.ctx.db
    .insertInto('message_recipients')
    .values({ message_id: id, server_id: s.serverId, stream_id: o.stream ?? 'outbound', kind: 'To', email: o.to ?? 'rcpt@example.net', name: '', status: 'Sent', received_at: s.clock.now(), settled_at: null })
    .execute();
  return id;
}

type EventSpec = Omit<MessageEventInput, 'serverId' | 'streamId' | 'occurredAt' | 'recipient'> & Partial<MessageEventInput>;

/** Records events in one transaction on the service's context, as the delivery and tracking areas do. */
export async function record(s: TestService, events: EventSpec[]): Promise<RecordedEvent[]> {
  const full = events.map((e) => ({ serverId: s.serverId, streamId: 'outbound', occurredAt: s.clock.now(), recipient: 'rcpt@example.net', ...e }));
  return s.ctx.db.transaction().execute((trx) => recordEvents(trx, s.ctx, full));
}

export async function addHook(s: TestService, url: string, body: Record<string, unknown> = {}): Promise<{ id: number; secret: string }> {
  const r = await s.request('POST', '/webhooks', { body: { Url: url, Triggers: ALL_TRIGGERS, ...body } });
  if (r.status !== 200) throw new Error(`webhook create failed: ${r.text}`);
  return { id: r.body.ID, secret: r.body.SigningSecret };
}

/** The verification snippet of the README ("Webhooks"), used as is. */
export { verifyMailroomSignature } from './verify-snippet.js';
