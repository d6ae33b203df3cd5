// Test data for the stream tests: a stored message with its recipients, as the accept path leaves it. Written
// directly so that these tests depend only on the table layout, not on the sending area's progress.
import { randomUUID } from 'node:crypto';
import type { TestService } from '../../helpers/service.js';

export async function insertMessage(
  s: TestService,
  o: { streamId: string; to?: string[]; serverId?: number; tag?: string; metadata?: Record<string, string> },
): Promise<string> {
  const id = randomUUID();
  const now = s.clock.now();
  const serverId = o.serverId ?? s.serverId;
  await s.ctx.db
    .insertInto('messages')
    .values({
      id,
      server_id: serverId,
      stream_id: o.streamId,
      from_email: 'news@example.com',
      from_raw: 'News <news@example.com>',
      subject: 'Hello',
      tag: o.tag ?? null,
      html_body: '<p>hi</p>',
      text_body: 'hi',
      reply_to: null,
      headers: '[]',
      metadata: JSON.stringify(o.metadata ?? {}),
      track_opens: 0,
      track_links: 'None',
      attachments: '[]',
      status: 'Sent',
      received_at: now,
      mime: null,
    })
    .execute();
  for (const email of o.to ?? ['reader@example.org']) {
    await s.ctx.db
      .insertInto('message_recipients')
      .values({ message_id: id, server_id: serverId, stream_id: o.streamId, kind: 'To', email, name: '', status: 'Sent', received_at: now, settled_at: now })
      .execute();
  }
  return id;
}
