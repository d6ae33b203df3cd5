// The account's tokens as the console manages them (server tokens: server-tokens.ts): listed by hint only
// (the value is never stored), issued (the value is returned this once), revoked one by one. Every request
// looks its token up (token-resolver.ts, no cache), so a revoked token is refused at once by every process.
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { generateToken, storeToken } from './tokens.js';

export async function listAccountTokens(ctx: AppContext, accountId: number) {
  return ctx.db.selectFrom('api_tokens').select(['id', 'hint', 'created_at']).where('account_id', '=', accountId).where('kind', '=', 'account').orderBy('id').execute();
}

export async function issueAccountToken(ctx: AppContext, accountId: number): Promise<string> {
  const value = generateToken();
  await storeToken(ctx.db, { kind: 'account', accountId, serverId: null, value, now: ctx.clock.now() });
  return value;
}

export async function revokeAccountToken(ctx: AppContext, accountId: number, tokenId: number): Promise<void> {
  const res = await ctx.db.deleteFrom('api_tokens').where('id', '=', tokenId).where('account_id', '=', accountId).where('kind', '=', 'account').executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw new ApiError(ErrorCode.NotFound, 'No such account token.');
}
