import type { Config } from '../../infra/config-types.js';
import type { Db } from '../../infra/db/database.js';
import { exclusiveTransaction } from '../../infra/db/exclusive.js';
import { createServer } from '../servers/create-server.js';
import { generateToken, resolveToken, storeToken } from '../tokens/tokens.js';

export interface BootstrapResult {
  accountToken: string;
  serverToken: string;
}

/**
 * On an empty database: one account and one server named "Default" with its default streams, and a token
 * of each kind (from MAILROOM_ACCOUNT_TOKEN / MAILROOM_SERVER_TOKEN when set). Returns the tokens so the
 * caller can show them once; returns null when the database was already set up.
 *
 * Processes started together on an empty database all call this: the check and the inserts run under one
 * exclusive lock, so exactly one of them creates the account and prints tokens, and the others find it.
 */
export async function bootstrap(database: Db, config: Config, now: number): Promise<BootstrapResult | null> {
  return exclusiveTransaction(database, 'bootstrap', async (trx) => {
    const existing = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (existing) return null;
    const account = await trx
      .insertInto('accounts')
      .values({ name: 'Default', created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const accountToken = config.accountToken ?? generateToken();
    await storeToken(trx, { kind: 'account', accountId: account.id, serverId: null, value: accountToken, now });
    const { token } = await createServer(trx, { accountId: account.id, name: 'Default', token: config.serverToken ?? undefined }, now);
    return { accountToken, serverToken: token };
  });
}

/**
 * The bootstrap variables set but not in effect: MAILROOM_ACCOUNT_TOKEN and MAILROOM_SERVER_TOKEN are read
 * only on an empty database, so on a database set up earlier a value that is not already a token of its kind
 * would be silently ignored (and every request using it refused). Called when bootstrap returned null, so
 * that the start can say so. A value already stored (a restart with the same environment) is not reported.
 */
export async function ignoredBootstrapTokens(database: Db, config: Pick<Config, 'accountToken' | 'serverToken'>): Promise<string[]> {
  const ignored: string[] = [];
  const check = async (variable: string, value: string | null, kind: 'account' | 'server') => {
    if (value === null) return;
    const known = await resolveToken(database.db, value);
    if (known?.kind !== kind) ignored.push(variable);
  };
  await check('MAILROOM_ACCOUNT_TOKEN', config.accountToken, 'account');
  await check('MAILROOM_SERVER_TOKEN', config.serverToken, 'server');
  return ignored;
}
