// API tokens. Only a SHA-256 digest of the lowercased value is stored: values are case-insensitive
// (specification, Authentication 3) and a database leak does not leak credentials.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

export type TokenKind = 'account' | 'server';

export interface ResolvedToken {
  kind: TokenKind;
  accountId: number;
  serverId: number | null;
}

export function generateToken(): string {
  return randomUUID();
}

export function hashToken(value: string): string {
  return createHash('sha256').update(value.trim().toLowerCase()).digest('hex');
}

export function tokenHint(value: string): string {
  return `…${value.trim().toLowerCase().slice(-4)}`;
}

export async function storeToken(
  db: Kysely<Database>,
  t: { kind: TokenKind; accountId: number; serverId: number | null; value: string; now: number },
): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values({
      kind: t.kind,
      account_id: t.accountId,
      server_id: t.serverId,
      token_hash: hashToken(t.value),
      hint: tokenHint(t.value),
      created_at: t.now,
    })
    .execute();
}

/** Looks a presented token up. The digest comparison after the indexed lookup is constant-time. */
export async function resolveToken(db: Kysely<Database>, value: string): Promise<ResolvedToken | null> {
  const digest = hashToken(value);
  const row = await db
    .selectFrom('api_tokens')
    .select(['kind', 'account_id', 'server_id', 'token_hash'])
    .where('token_hash', '=', digest)
    .executeTakeFirst();
  if (!row) return null;
  const a = Buffer.from(row.token_hash, 'hex');
  const b = Buffer.from(digest, 'hex');
  if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
  return { kind: row.kind, accountId: row.account_id, serverId: row.server_id };
}
