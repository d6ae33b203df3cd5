// VERP envelope senders: each recipient's copy goes out with its own Return-Path, so that a bounce names
// the message and recipient in the address it is sent to, without reading its body. The address is signed
// so that nobody can forge a bounce that suppresses an arbitrary recipient.
//   bounce+<message id, 32 hex>.<recipient row id>.<signature>@<return-path domain>
import type { Secrets } from '../crypto/secrets.js';

export interface VerpTarget {
  messageId: string;
  recipientId: number;
}

const PURPOSE = 'verp';

export function encodeVerp(secrets: Secrets, t: VerpTarget, domain: string): string {
  const data = `${t.messageId.replace(/-/g, '').toLowerCase()}.${t.recipientId}`;
  const sig = secrets.sign(PURPOSE, data).split('.')[1].slice(0, 12).toLowerCase();
  return `bounce+${data}.${sig}@${domain}`;
}

/** Reads a VERP address back; null when it is not one of ours or its signature does not match. */
export function decodeVerp(secrets: Secrets, address: string): VerpTarget | null {
  const m = /^bounce\+([0-9a-f]{32})\.(\d{1,15})\.([0-9a-z_-]{12})@/i.exec(address.trim());
  if (!m) return null;
  const data = `${m[1].toLowerCase()}.${m[2]}`;
  const want = secrets.sign(PURPOSE, data).split('.')[1].slice(0, 12).toLowerCase();
  // Local parts may have been lowercased in transit; the signature is compared case-insensitively.
  if (want !== m[3].toLowerCase()) return null;
  const h = m[1].toLowerCase();
  const messageId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { messageId, recipientId: Number(m[2]) };
}
