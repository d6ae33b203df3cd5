// API tokens from the console: a server's tokens and the account's, listed by hint, issued and revoked.
// A new token's value is in the answer to the POST that issued it and nowhere else: not in a redirect, a
// cookie or a later page (only its SHA-256 is stored, domain/tokens), so reloading the list never shows it
// again. Revoking deletes the row; every request looks its token up, so it is refused at once everywhere.
import type { AppContext } from '../../../domain/app-context.js';
import { issueAccountToken, revokeAccountToken } from '../../../domain/tokens/account-tokens.js';
import { issueServerToken, revokeServerToken } from '../../../domain/tokens/server-tokens.js';
import { getAccountServer } from '../../../domain/servers/account-servers.js';
import type { Session } from '../../../domain/console-users/sessions.js';
import { html, type Html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { rowIdOf } from './row-id.js';

interface TokenRow {
  id: number;
  hint: string;
  created_at: number;
}

/** A token list with a revoke button per token and an issue button (admins only). */
/** `back`: the page a revoke returns to (the servers list when not given). */
export function tokenList(session: Session, base: string, tokens: TokenRow[], what: string, owner?: string, back?: string): Html {
  const admin = session.user.role === 'admin';
  const issue = `Issue ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`;
  return html`<ul class="tokens">${tokens.map(
    (t) => html`<li><code>${t.hint}</code> <span class="muted">issued ${when(t.created_at)}</span>${admin ? html` <form method="post" action="${base}/${t.id}/revoke" class="inline">${csrf(session)}${back ? html`<input type="hidden" name="back" value="${back}">` : ''}<button type="submit" class="quiet-danger" aria-label="Revoke ${what} ending ${t.hint.replace('…', '')}">Revoke</button></form>` : ''}</li>`,
  )}</ul>${tokens.length === 0 ? html`<p class="muted">No ${what}s: requests with any token are refused.</p>` : ''}
${admin ? html`<form method="post" action="${base}" class="inline">${csrf(session)}<button type="submit"${owner ? html` aria-label="${issue} for ${owner}"` : ''}>${issue}</button></form>` : ''}`;
}

/** The one page that ever shows a token's value; `serverId`: the server it belongs to, for the way back. */
export function issuedPage(c: PageCall, title: string, header: string, token: string, serverId?: number): string {
  const body = html`<div class="card issued"><p><strong>Copy this token now.</strong> It is shown only on this page, only this once: mailroom keeps a one-way digest of it, not the token.</p>
<p class="token-line"><code id="new-token" class="wrap">${token}</code> <button type="button" data-copy="#new-token" aria-label="Copy the new token">Copy</button></p>
<p class="muted">Send it in the <code>${header}</code> header.</p></div>
<p><a href="/console/servers">Back to servers and tokens</a>${serverId === undefined ? '' : html` · <a href="/console/servers/${serverId}">Settings of the server</a>`}</p>`;
  return page(c.frame(title, 'servers'), body);
}

export function registerTokens(r: ConsoleRouter, ctx: AppContext): void {
  r.action('/console/servers/:id/tokens', async (c) => {
    const s = await getAccountServer(ctx.db, c.session.user.accountId, rowIdOf(c.params.id));
    const token = await issueServerToken(ctx, c.session.user.accountId, s.id);
    return issuedPage(c, `New server token for ${s.name}`, 'X-Service-Server-Token', token, s.id);
  });
  r.action('/console/servers/:id/tokens/:tid/revoke', async (c) => {
    const s = await getAccountServer(ctx.db, c.session.user.accountId, rowIdOf(c.params.id));
    await revokeServerToken(ctx, c.session.user.accountId, s.id, rowIdOf(c.params.tid));
    // Back to the server's page when the revoke came from it, else to the list.
    return redirectWith(c.reply, c.body.back === `/console/servers/${s.id}` ? c.body.back : '/console/servers', { notice: 'Server token revoked: requests with it are refused from now on.' });
  });
  r.action('/console/account/tokens', async (c) => {
    const token = await issueAccountToken(ctx, c.session.user.accountId);
    return issuedPage(c, 'New account token', 'X-Service-Account-Token', token);
  });
  r.action('/console/account/tokens/:tid/revoke', async (c) => {
    await revokeAccountToken(ctx, c.session.user.accountId, rowIdOf(c.params.tid));
    return redirectWith(c.reply, '/console/servers', { notice: 'Account token revoked: requests with it are refused from now on.' });
  });
}

