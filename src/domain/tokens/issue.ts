import type { AppContext } from '../app-context.js';
import { generateToken, storeToken } from './tokens.js';

/** Issues an additional token from the shell (`mailroom token ...`); existing tokens keep working. */
export async function issueToken(ctx: AppContext, kind: 'server' | 'account', serverId?: number): Promise<string> {
  const account = await ctx.db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst();
  if (!account) throw new Error('the database has no account yet: run `mailroom serve` once first');
  let sid: number | null = null;
  if (kind === 'server') {
    const q = ctx.db.selectFrom('servers').select('id').where('account_id', '=', account.id);
    const server = await (serverId === undefined ? q.orderBy('id').limit(1) : q.where('id', '=', serverId)).executeTakeFirst();
    if (!server) throw new Error(serverId === undefined ? 'no server exists' : `no server with ID ${serverId}`);
    sid = server.id;
  }
  const value = generateToken();
  await storeToken(ctx.db, { kind, accountId: account.id, serverId: sid, value, now: ctx.clock.now() });
  return value;
}
