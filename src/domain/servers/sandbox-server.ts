// A setting that names one Sandbox server (its name, or its ID) to serve something without credentials:
// MAILROOM_DEV_SMTP_SERVER (mail taken without AUTH) and MAILROOM_MAILPIT_OPEN_SERVER (Mailpit's API without
// Basic authentication). Only a Sandbox server qualifies: its mail never leaves mailroom, so what a stranger on
// the network can do without a token is bounded to a test inbox. Checked at start (the process does not start
// otherwise) and again at each use (the server may have been deleted, renamed or made Live since).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

/** Why the named server cannot be used; `variable` is the setting to fix. */
export class SandboxServerRefused extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SandboxServer {
  id: number;
  accountId: number;
  name: string;
}

/**
 * The Sandbox server `nameOrId` names; throws SandboxServerRefused naming `variable` when none, several, or a
 * Live server. `use` says what the server is for, in the Live refusal's message.
 */
export async function sandboxServerNamed(db: Kysely<Database>, variable: string, nameOrId: string, use: string): Promise<SandboxServer> {
  const byId = /^\d{1,15}$/.test(nameOrId);
  const rows = await db
    .selectFrom('servers')
    .select(['id', 'account_id', 'name', 'delivery_type'])
    .where(byId ? 'id' : 'name', '=', byId ? Number(nameOrId) : nameOrId)
    .limit(2)
    .execute();
  const refuse = (why: string) => new SandboxServerRefused(variable, why);
  if (rows.length === 0) throw refuse(`no server ${byId ? 'with ID' : 'named'} ${JSON.stringify(nameOrId)}; create a Sandbox server (POST /servers with "DeliveryType": "Sandbox") and name it here`);
  if (rows.length > 1) throw refuse(`more than one server is named ${JSON.stringify(nameOrId)}; give its ID instead`);
  const s = rows[0]!;
  if (s.delivery_type !== 'Sandbox') throw refuse(`server ${JSON.stringify(s.name)} (ID ${s.id}) is a Live server; ${use}`);
  return { id: s.id, accountId: s.account_id, name: s.name };
}

/** Whether the server still exists and is a Sandbox server (checked at each use). */
export async function isStillSandbox(db: Kysely<Database>, serverId: number): Promise<boolean> {
  const s = await db.selectFrom('servers').select('delivery_type').where('id', '=', serverId).executeTakeFirst();
  return s?.delivery_type === 'Sandbox';
}
