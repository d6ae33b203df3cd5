// Copied verbatim from the README section "Webhooks" (how a receiver verifies a request).
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyMailroomSignature(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string, toleranceSeconds = 300): boolean {
  const timestamp = String(headers['x-mailroom-timestamp'] ?? '');
  const signature = String(headers['x-mailroom-signature'] ?? '');
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from('v1=' + createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex'));
  // After a rotation the header carries one signature per secret still valid, comma-separated.
  return signature.split(',').some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
}
