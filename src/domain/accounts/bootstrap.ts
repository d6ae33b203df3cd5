import type { Config } from '../../infra/config-types.js';
import type { Db } from '../../infra/db/database.js';
import { exclusiveTransaction } from '../../infra/db/exclusive.js';
import { createServer } from '../servers/create-server.js';
import { generateToken, storeToken } from '../tokens/tokens.js';

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
