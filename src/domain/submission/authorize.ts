// SMTP AUTH for submission (RFC 4954): a server token is the credential. The hosted service takes the token
// as both user name and password; mailroom accepts it in either (a client that puts something else in the
// user name field still works), resolved through the same digests as the API's tokens. A user name and a
// password that are the tokens of two different servers are refused: which server would send is a guess, and
// a client holding one server's token must not reach another's by pairing tokens.
import type { AppContext } from '../app-context.js';
import type { SendAuth } from '../accepting/accept.js';
import type { TokenResolver } from '../tokens/token-resolver.js';

export type SubmissionAuth = { ok: true; auth: SendAuth } | { ok: false; reason: 'bad-token' | 'account-token' | 'smtp-off' | 'two-servers' };

export async function authorizeSubmission(ctx: AppContext, tokens: TokenResolver, username: string, password: string): Promise<SubmissionAuth> {
  const [byPassword, byUser] = await Promise.all([
    password ? tokens.resolve(password) : null,
    username && username !== password ? tokens.resolve(username) : null,
  ]);
  if (byPassword?.kind === 'server' && byUser?.kind === 'server' && byPassword.serverId !== byUser.serverId) return { ok: false, reason: 'two-servers' };
  const token = byPassword ?? byUser;
  if (!token) return { ok: false, reason: 'bad-token' };
  if (token.kind !== 'server' || token.serverId === null) return { ok: false, reason: 'account-token' };
  const server = await ctx.db.selectFrom('servers').select('smtp_api_activated').where('id', '=', token.serverId).executeTakeFirst();
  if (!server) return { ok: false, reason: 'bad-token' };
  if (server.smtp_api_activated !== 1) return { ok: false, reason: 'smtp-off' };
  return { ok: true, auth: { accountId: token.accountId, serverId: token.serverId, testMode: false } };
}
