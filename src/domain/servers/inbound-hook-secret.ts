// The password of a server's InboundHookUrl (`https://user:pass@host/`, README "Inbound") is a secret like a
// webhook's HttpAuth password (domain/webhooks/store.ts): sealed at rest in servers.inbound_hook_password
// (migration 0027), the URL column keeping the address and user name, and shown as a fixed mask. A URL given
// back with the mask as its password (what GET answered) keeps the stored password. Only the inbound-hook
// poster sees the password, when it posts.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { Secrets } from '../../infra/crypto/secrets.js';
import { PASSWORD_MASK } from '../webhooks/view.js';

function parse(url: string): URL | null {
  try {
    return url ? new URL(url) : null;
  } catch {
    return null;
  }
}

/** The URL without its password, and the password (decoded; '' for none). */
export function splitHookPassword(url: string): { url: string; password: string } {
  const u = parse(url);
  if (!u || !u.password) return { url, password: '' };
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { url: u.href, password };
}

/** The columns for an InboundHookUrl given by the API: its password sealed, the mask keeping the stored one. */
export function inboundHookColumns(secrets: Secrets, given: string, stored: string): { inbound_hook_url: string; inbound_hook_password: string } {
  const { url, password } = splitHookPassword(given);
  if (password === '') return { inbound_hook_url: url, inbound_hook_password: '' };
  return { inbound_hook_url: url, inbound_hook_password: password === PASSWORD_MASK ? stored : secrets.seal(password) };
}

function withPassword(url: string, password: string): string {
  const u = parse(url);
  if (!u) return url;
  u.password = password; // percent-encoded by the URL setter (WHATWG userinfo set)
  return u.href;
}

/** InboundHookUrl as the API shows it: the password, when there is one, as the mask. */
export function maskedHookUrl(row: { inbound_hook_url: string; inbound_hook_password: string }): string {
  return row.inbound_hook_password ? withPassword(row.inbound_hook_url, PASSWORD_MASK) : row.inbound_hook_url;
}

/** The URL to post to, with the real password. */
export function hookUrlWithPassword(secrets: Secrets, row: { inbound_hook_url: string; inbound_hook_password: string }): string {
  return row.inbound_hook_password ? withPassword(row.inbound_hook_url, secrets.open(row.inbound_hook_password)) : row.inbound_hook_url;
}

/**
 * Seals the passwords still in plain text inside InboundHookUrl (rows written before migration 0027, which
 * cannot seal: migrations import nothing from the app). Run at every start, after the migrations; a row is
 * changed only if its URL is still the one read, so processes starting together seal each once.
 */
export async function sealInboundHookPasswords(db: Kysely<Database>, secrets: Secrets): Promise<number> {
  const rows = await db.selectFrom('servers').select(['id', 'inbound_hook_url']).where('inbound_hook_url', 'like', '%@%').execute();
  let sealed = 0;
  for (const r of rows) {
    const { url, password } = splitHookPassword(r.inbound_hook_url);
    if (password === '') continue;
    const res = await db
      .updateTable('servers')
      .set({ inbound_hook_url: url, inbound_hook_password: secrets.seal(password) })
      .where('id', '=', r.id)
      .where('inbound_hook_url', '=', r.inbound_hook_url)
      .executeTakeFirst();
    sealed += Number(res.numUpdatedRows);
  }
  return sealed;
}
