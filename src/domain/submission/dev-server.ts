// The server the credential-less development listener (smtp-listeners/dev-smtp-listener.ts) puts mail into:
// MAILROOM_DEV_SMTP_SERVER names it (its name, or its ID). Only a Sandbox server qualifies: a listener taking
// mail without credentials must never make a server deliver to the internet. The lookup and its refusals are
// shared with MAILROOM_MAILPIT_OPEN_SERVER (servers/sandbox-server.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { SendAuth } from '../accepting/accept.js';
import { sandboxServerNamed, SandboxServerRefused } from '../servers/sandbox-server.js';

export { isStillSandbox } from '../servers/sandbox-server.js';

export const DEV_SERVER_VARIABLE = 'MAILROOM_DEV_SMTP_SERVER';

/** Why the listener cannot start; `variable` is the setting to fix. */
export const DevServerRefused = SandboxServerRefused;

/** The Sandbox server `nameOrId` names, as the sender of every message the listener takes; throws DevServerRefused. */
export async function devServerSender(db: Kysely<Database>, nameOrId: string): Promise<SendAuth> {
  const s = await sandboxServerNamed(db, DEV_SERVER_VARIABLE, nameOrId, 'the listener takes mail without credentials, so only into a Sandbox server (which never delivers)');
  // Any From, as Mailpit's SMTP port takes it: an application configured for Mailpit sends unchanged.
  return { accountId: s.accountId, serverId: s.id, testMode: false, anyFrom: true };
}
