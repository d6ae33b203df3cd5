// API tokens. Only a SHA-256 digest of the lowercased value is stored: values are case-insensitive
// (docs/reference/api-conventions.md, "Authentication" 3) and a database leak does not leak credentials.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

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
  return (await resolveDigests(db, [digest])).get(digest) ?? null;
}

/**
 * Resolves many digests with one indexed query. The list is padded to a power of two (repeating its last
 * digest) so that only a handful of distinct statements exist, and SQLite's statement cache keeps them.
 */
export async function resolveDigests(db: Kysely<Database>, digests: string[]): Promise<Map<string, ResolvedToken>> {
  const out = new Map<string, ResolvedToken>();
  if (digests.length === 0) return out;
  const padded = [...digests];
  while (padded.length & (padded.length - 1)) padded.push(digests[digests.length - 1]);
  const rows = await db
    .selectFrom('api_tokens')
    .select(['kind', 'account_id', 'server_id', 'token_hash'])
    .where('token_hash', 'in', padded)
    .execute();
  const byHash = new Map(rows.map((r) => [r.token_hash, r]));
  for (const digest of digests) {
    const row = byHash.get(digest);
    if (!row) continue;
    const a = Buffer.from(row.token_hash, 'hex');
    const b = Buffer.from(digest, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) continue;
    out.set(digest, { kind: row.kind, accountId: row.account_id, serverId: row.server_id });
  }
  return out;
}

/** Revokes every token of a server at once (before the server's data is purged: see deleteAccountServer). */
export async function revokeServerTokens(db: Kysely<Database>, serverId: number): Promise<number> {
  const r = await db.deleteFrom('api_tokens').where('server_id', '=', serverId).executeTakeFirst();
  return Number(r.numDeletedRows);
}
