// A server's tokens as the console manages them: listed by hint only (the value is never stored), issued
// (the value is returned this once), revoked one by one. Lookups happen on every request (token-resolver.ts),
// so a revoked token is refused at once by every process.
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { generateToken, storeToken } from './tokens.js';

export async function listServerTokens(ctx: AppContext, accountId: number, serverId: number) {
  return ctx.db.selectFrom('api_tokens').select(['id', 'hint', 'created_at']).where('account_id', '=', accountId).where('server_id', '=', serverId).where('kind', '=', 'server').orderBy('id').execute();
}

export async function issueServerToken(ctx: AppContext, accountId: number, serverId: number): Promise<string> {
  const value = generateToken();
  await storeToken(ctx.db, { kind: 'server', accountId, serverId, value, now: ctx.clock.now() });
  return value;
}

export async function revokeServerToken(ctx: AppContext, accountId: number, serverId: number, tokenId: number): Promise<void> {
  const res = await ctx.db.deleteFrom('api_tokens').where('id', '=', tokenId).where('account_id', '=', accountId).where('server_id', '=', serverId).where('kind', '=', 'server').executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw new ApiError(ErrorCode.NotFound, 'No such token on this server.');
}
