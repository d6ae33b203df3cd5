// Who may use Mailpit's API: HTTP Basic authentication with any user name and a server token as
// the password, selecting that server's messages. A Sandbox server's mail never leaves mailroom, so its
// token is enough; a Live server's messages are real mail to real people, served only while the whole
// process delivers nothing (MAILROOM_CAPTURE_DIR: every message is written to a local file instead).
// Stock Mailpit serves its API without credentials; MAILROOM_MAILPIT_OPEN_SERVER names one Sandbox server that
// a request without an Authorization header is served as, so a test suite configured for Mailpit needs no
// credentials. A request that does carry credentials is judged by them alone (bad ones are refused, never
// served as the open server), and the open server is looked up again per request: deleted, renamed or made
// Live since the start, it serves nothing.
import type { AppContext } from '../app-context.js';
import { sandboxServerNamed, SandboxServerRefused } from '../servers/sandbox-server.js';
import type { TokenResolver } from '../tokens/token-resolver.js';
import type { MailpitServer } from './filters.js';

export type Access = { ok: true; server: MailpitServer } | { ok: false; status: 401 | 403; message: string };

/** The password of an `Authorization: Basic` header (RFC 7617), or null. */
export function basicPassword(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^basic[ \t]+([A-Za-z0-9+/=]{1,4096})[ \t]*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

export const OPEN_SERVER_VARIABLE = 'MAILROOM_MAILPIT_OPEN_SERVER';
const OPEN_SERVER_USE = "Mailpit's API serves it without credentials, so only a Sandbox server (whose mail never leaves mailroom)";
const NO_CREDENTIALS = 'Unauthorized: use HTTP Basic authentication with a server token as the password.';

/** The open server MAILROOM_MAILPIT_OPEN_SERVER names; throws SandboxServerRefused naming the variable (checked at start). */
export async function mailpitOpenServer(ctx: AppContext, nameOrId: string): Promise<MailpitServer> {
  const s = await sandboxServerNamed(ctx.db, OPEN_SERVER_VARIABLE, nameOrId, OPEN_SERVER_USE);
  return { id: s.id, accountId: s.accountId, sandbox: true };
}

async function openAccess(ctx: AppContext): Promise<Access> {
  const nameOrId = ctx.config.mailpitOpenServer;
  if (nameOrId === null) return { ok: false, status: 401, message: NO_CREDENTIALS };
  try {
    return { ok: true, server: await mailpitOpenServer(ctx, nameOrId) };
  } catch (err) {
    if (err instanceof SandboxServerRefused) return { ok: false, status: 401, message: NO_CREDENTIALS };
    throw err;
  }
}

export async function mailpitAccess(ctx: AppContext, tokens: TokenResolver, authorization: string | undefined): Promise<Access> {
  if (authorization === undefined) return openAccess(ctx);
  const password = basicPassword(authorization);
  if (!password) return { ok: false, status: 401, message: NO_CREDENTIALS };
  const t = await tokens.resolve(password.trim());
  if (!t || t.kind !== 'server' || t.serverId === null) return { ok: false, status: 401, message: 'Unauthorized: the password is not a server token.' };
  const s = await ctx.db.selectFrom('servers').select(['id', 'account_id', 'delivery_type']).where('id', '=', t.serverId).executeTakeFirst();
  if (!s) return { ok: false, status: 401, message: 'Unauthorized: the password is not a server token.' };
  const sandbox = s.delivery_type === 'Sandbox';
  if (!sandbox && !ctx.config.captureDir) {
    return {
      ok: false,
      status: 403,
      message:
        "Forbidden: this is a Live server's token. Mailpit's API serves the messages of Sandbox servers, whose mail never leaves mailroom; a Live server's messages only while mailroom runs with MAILROOM_CAPTURE_DIR (nothing delivered). Use a Sandbox server's token.",
    };
  }
  return { ok: true, server: { id: s.id, accountId: s.account_id, sandbox } };
}
