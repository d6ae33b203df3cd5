// Who may use Mailpit's API: HTTP Basic authentication with any user name and a server token as
// the password, selecting that server's messages. A Sandbox server's mail never leaves mailroom, so its
// token is enough; a Live server's messages are real mail to real people, served only while the whole
// process delivers nothing (MAILROOM_CAPTURE_DIR: every message is written to a local file instead).
import type { AppContext } from '../app-context.js';
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

export async function mailpitAccess(ctx: AppContext, tokens: TokenResolver, authorization: string | undefined): Promise<Access> {
  const password = basicPassword(authorization);
  if (!password) return { ok: false, status: 401, message: 'Unauthorized: use HTTP Basic authentication with a server token as the password.' };
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
