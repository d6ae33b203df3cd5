// The link of one recipient's copy of a broadcast (RFC 8058 one-click unsubscribe). The token carries
// everything the unsubscribe needs, so the link works without a lookup table, encrypted (AES-GCM,
// src/infra/crypto/secrets.ts) so that it cannot be read, forged or pointed at another address. Tokens of
// mail sent before were signed but readable (they hold a '.'); they are still accepted.
import type { AppContext } from '../app-context.js';

export interface UnsubscribeClaim {
  serverId: number;
  streamId: string;
  messageId: string;
  recipient: string;
}

const PURPOSE = 'unsubscribe';
const VERSION = 'u1';

export function unsubscribeToken(ctx: AppContext, c: UnsubscribeClaim): string {
  return ctx.secrets.encrypt(PURPOSE, [VERSION, c.serverId, c.streamId, c.messageId, c.recipient].join('\n'));
}

/** `base`: the sending domain's verified tracking host (https://links.example.com), else the public URL. */
export function unsubscribeUrl(ctx: AppContext, c: UnsubscribeClaim, base = ctx.config.publicUrl): string {
  return `${base}/unsubscribe/${unsubscribeToken(ctx, c)}`;
}

/** The claim of a genuine token, or null for a forged, altered or malformed one. */
export function readUnsubscribeToken(ctx: AppContext, token: string): UnsubscribeClaim | null {
  const data = token.includes('.') ? ctx.secrets.verify(PURPOSE, token) : ctx.secrets.decrypt(PURPOSE, token);
  if (data === null) return null;
  // Line-separated rather than JSON: nothing in it needs escaping, so even a 254-character address keeps the
  // link within the router's 500-character path parameter. The recipient comes last and may hold anything.
  const parts = data.split('\n');
  if (parts.length < 5 || parts[0] !== VERSION) return null;
  const [, server, streamId, messageId] = parts;
  const serverId = Number(server);
  const recipient = parts.slice(4).join('\n');
  if (!Number.isSafeInteger(serverId) || !streamId || !messageId || !recipient) return null;
  return { serverId, streamId, messageId, recipient };
}
