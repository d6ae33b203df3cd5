// The server the credential-less development listener (smtp-listeners/dev-smtp-listener.ts) puts mail into:
// MAILROOM_DEV_SMTP_SERVER names it (its name, or its ID). Only a Sandbox server qualifies: a listener taking
// mail without credentials must never make a server deliver to the internet. It is checked at start (the
// process does not start otherwise) and again for each message (the server may have been deleted since).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { SendAuth } from '../accepting/accept.js';

export const DEV_SERVER_VARIABLE = 'MAILROOM_DEV_SMTP_SERVER';

/** Why the listener cannot start; `variable` is the setting to fix. */
export class DevServerRefused extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** The Sandbox server `nameOrId` names, as the sender of every message the listener takes; throws DevServerRefused. */
export async function devServerSender(db: Kysely<Database>, nameOrId: string): Promise<SendAuth> {
  const byId = /^\d{1,15}$/.test(nameOrId);
  const rows = await db
    .selectFrom('servers')
    .select(['id', 'account_id', 'name', 'delivery_type'])
    .where(byId ? 'id' : 'name', '=', byId ? Number(nameOrId) : nameOrId)
    .limit(2)
    .execute();
  const refuse = (why: string) => new DevServerRefused(DEV_SERVER_VARIABLE, why);
  if (rows.length === 0) throw refuse(`no server ${byId ? 'with ID' : 'named'} ${JSON.stringify(nameOrId)}; create a Sandbox server (POST /servers with "DeliveryType": "Sandbox") and name it here`);
  if (rows.length > 1) throw refuse(`more than one server is named ${JSON.stringify(nameOrId)}; give its ID instead`);
  const s = rows[0];
  if (s.delivery_type !== 'Sandbox') {
    throw refuse(`server ${JSON.stringify(s.name)} (ID ${s.id}) is a Live server; the listener takes mail without credentials, so only into a Sandbox server (which never delivers)`);
  }
  // Any From, as Mailpit's SMTP port takes it: an application configured for Mailpit sends unchanged.
  return { accountId: s.account_id, serverId: s.id, testMode: false, anyFrom: true };
}

/** Whether the server still exists and is a Sandbox server (checked for each message). */
export async function isStillSandbox(db: Kysely<Database>, serverId: number): Promise<boolean> {
  const s = await db.selectFrom('servers').select('delivery_type').where('id', '=', serverId).executeTakeFirst();
  return s?.delivery_type === 'Sandbox';
}
