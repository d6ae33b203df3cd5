// Idempotency-Key (beyond the API; the convention of the IETF draft "The Idempotency-Key HTTP
// Header Field"): a client that retries a send after a timeout passes the same key, and within 24 hours gets
// the first answer back instead of a second copy of its mail. The key row is written in the transaction that
// stores the messages, so the answer exists exactly when the messages do.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import type { SendResult } from './types.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyInput {
  key: string;
  /** SHA-256 of the route and the body: the key belongs to one request. */
  hash: string;
}

/** Reads the header; null when absent. A malformed key is refused (422, ErrorCode 300). */
export function readIdempotencyKey(header: string | string[] | undefined, route: string, body: unknown): IdempotencyInput | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return null;
  const key = value.trim();
  if (!KEY.test(key)) throw new ApiError(ErrorCode.InvalidEmailRequest, 'The Idempotency-Key header must be 1 to 255 printable ASCII characters without spaces.');
  const hash = createHash('sha256').update(route).update('\n').update(JSON.stringify(body) ?? '').digest('hex');
  return { key, hash };
}

/** The stored answer of an earlier request with this key (not expired), or null. */
export async function findStoredAnswer(db: Kysely<Database>, serverId: number, idem: IdempotencyInput, now: number): Promise<SendResult[] | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response'])
    .where('server_id', '=', serverId)
    .where('key', '=', idem.key)
    .where('created_at', '>', now - IDEMPOTENCY_TTL_MS)
    .executeTakeFirst();
  if (!row) return null;
  if (row.request_hash !== idem.hash) {
    throw new ApiError(ErrorCode.InvalidEmailRequest, 'This Idempotency-Key was already used for a different request in the last 24 hours.');
  }
  return JSON.parse(row.response) as SendResult[];
}

export async function storeAnswer(trx: Kysely<Database>, serverId: number, idem: IdempotencyInput, results: SendResult[], now: number): Promise<void> {
  // An expired row with the same key gives way to the new one.
  await trx.deleteFrom('idempotency_keys').where('server_id', '=', serverId).where('key', '=', idem.key).where('created_at', '<=', now - IDEMPOTENCY_TTL_MS).execute();
  await trx
    .insertInto('idempotency_keys')
    .values({ server_id: serverId, key: idem.key, request_hash: idem.hash, response: JSON.stringify(results), created_at: now })
    .execute();
}

/** Periodic purge of expired keys (registered in src/worker.ts). */
export async function purgeIdempotencyKeys(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<=', now - IDEMPOTENCY_TTL_MS).execute();
}
