// A test post of a server's InboundHookUrl: a sample inbound message in the inbound webhook's shape
// (payload.ts InboundPayload), posted once by the same poster as real inbound messages (webhooks/http-post.ts
// with credentials taken from the URL: the address guard, no redirects, a hard deadline, the answer's first
// bytes kept). Nothing is stored; the server's inbound messages are untouched.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { hookUrlWithPassword } from '../servers/inbound-hook-secret.js';
import { createPoster, type PostResult } from '../webhooks/http-post.js';
import { TEST_POST_TIMEOUT_MS } from '../webhooks/test-post.js';
import type { InboundPayload } from './payload.js';

/** The sample message, addressed to the server's own inbound address (with a MailboxHash, as a reply would be). */
export function sampleInboundPayload(inboundAddress: string, streamId: string, now: number): InboundPayload {
  const at = inboundAddress.lastIndexOf('@');
  const to = `${inboundAddress.slice(0, at)}+sample-hash${inboundAddress.slice(at)}`;
  return {
    From: 'jane@example.com',
    FromName: 'Jane Sender',
    FromFull: { Email: 'jane@example.com', Name: 'Jane Sender', MailboxHash: '' },
    To: `"Support" <${to}>`,
    ToFull: [{ Email: to, Name: 'Support', MailboxHash: 'sample-hash' }],
    Cc: '',
    CcFull: [],
    Bcc: '',
    BccFull: [],
    OriginalRecipient: to,
    ReplyTo: '',
    Subject: 'Test post from mailroom',
    MessageID: randomUUID(),
    Date: new Date(now).toUTCString().replace('GMT', '+0000'),
    MailboxHash: 'sample-hash',
    TextBody: 'This is a sample inbound message sent by the console to test the InboundHookUrl.\n\n> The quoted earlier message.',
    HtmlBody: '<p>This is a sample inbound message sent by the console to test the InboundHookUrl.</p>',
    StrippedTextReply: 'This is a sample inbound message sent by the console to test the InboundHookUrl.',
    Tag: '',
    Headers: [{ Name: 'X-Spam-Status', Value: 'No' }, { Name: 'X-Spam-Score', Value: '0.0' }],
    Attachments: [],
    MessageStream: streamId,
  };
}

export interface InboundTestPost extends PostResult {
  payload: string;
}

/** Posts the sample to the server's InboundHookUrl, with its stored password; null when none is set. */
export async function sendInboundTestPost(ctx: AppContext, serverId: number): Promise<InboundTestPost | null> {
  const s = await ctx.db.selectFrom('servers').select(['inbound_hook_url', 'inbound_hook_password', 'inbound_hash']).where('id', '=', serverId).executeTakeFirstOrThrow();
  if (!s.inbound_hook_url) return null;
  const stream = await ctx.db.selectFrom('message_streams').select('id').where('server_id', '=', serverId).where('type', '=', 'Inbound').executeTakeFirst();
  const now = ctx.clock.now();
  const payload = JSON.stringify(sampleInboundPayload(`${s.inbound_hash}@${ctx.config.inboundDomain}`, stream?.id ?? 'inbound', now));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': 'mailroom-inbound/1',
    'X-Mailroom-Inbound-Id': 'test-post',
    'X-Mailroom-Attempt': '1',
    'X-Mailroom-Timestamp': String(Math.floor(now / 1000)),
  };
  const poster = createPoster(ctx, 1, { credentialsInUrl: true });
  try {
    return { ...(await poster.post(hookUrlWithPassword(ctx.secrets, s), headers, payload, TEST_POST_TIMEOUT_MS)), payload };
  } finally {
    poster.close();
  }
}
