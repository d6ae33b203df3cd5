// Authenticity of webhook requests (beyond the hosted service, which does not sign): an HMAC-SHA256 over the
// timestamp and the exact body, keyed by the webhook's own secret. The timestamp inside the MAC lets a
// receiver refuse replays of old requests. The README ("Webhooks") shows how to verify it.
import { createHmac, randomBytes } from 'node:crypto';

export const HEADER = {
  eventId: 'X-Mailroom-Event-Id',
  notificationId: 'X-Mailroom-Notification-Id',
  attempt: 'X-Mailroom-Attempt',
  timestamp: 'X-Mailroom-Timestamp',
  signature: 'X-Mailroom-Signature',
} as const;

/** A new signing secret: 32 random bytes, prefixed so that it is recognisable in a config file. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** `v1=<hex HMAC-SHA256(secret, timestamp + "." + body)>`; timestamp in Unix seconds. Within a day of a
 * rotation the header carries two of them, comma-separated: the new secret's first, then the old one's. */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
