// The account's servers: the list (with each server's inbound address and its tokens by hint), "New server"
// with every setting POST /servers takes, and the account's own tokens. Everyone may look; only admins change
// (checked per action by the router, not only hidden here).
import type { AppContext } from '../../../domain/app-context.js';
import { createAccountServer, getAccountServer } from '../../../domain/servers/account-servers.js';
import { serverView } from '../../../domain/servers/server-view.js';
import { listAccountTokens } from '../../../domain/tokens/account-tokens.js';
import { listServerTokens } from '../../../domain/tokens/server-tokens.js';
import { formError } from '../form-errors.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { type ConsoleRouter, type PageCall } from '../router.js';
import { NEW_SERVER_VALUES, formValuesFrom, serverFieldOf, serverForm, serverInput, type ServerFormValues } from './server-form.js';
import type { FormError } from '../form-errors.js';
import { issuedPage, tokenList } from './tokens.js';

function newServerPage(ctx: AppContext, c: PageCall, values: ServerFormValues, error: FormError | null): string {
  const form = serverForm(ctx, { action: '/console/servers', mode: 'new', values, error, session: c.session, submit: 'Create server', label: 'New server' });
  return page(c.frame('New server', 'servers'), html`<div class="card">${form}</div><p><a href="/console/servers">Back to servers</a></p>`);
}

export function registerServers(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/servers', async (c) => {
    const admin = c.session.user.role === 'admin';
    const accountId = c.session.user.accountId;
    const sections = await Promise.all(
      c.servers.map(async (ref) => {
        const s = await getAccountServer(ctx.db, accountId, ref.id);
        const tokens = await listServerTokens(ctx, accountId, s.id);
        const base = `/console/servers/${s.id}`;
        return html`<section class="card" aria-labelledby="server-${s.id}"><h2 id="server-${s.id}"><a href="${base}">${s.name}</a> <span class="badge">${s.delivery_type}</span></h2>
<dl class="details"><dt>Inbound address</dt><dd><code class="wrap">${serverView(s, ctx.config, []).InboundAddress}</code></dd><dt>Retention</dt><dd>${s.retention_days} days</dd><dt>SMTP</dt><dd>${s.smtp_api_activated ? 'on' : 'off'}</dd></dl>
${s.ip_pool ? html`<p class="muted">Sends from IP pool <code>${s.ip_pool}</code>.</p>` : ''}
<p class="toolbar"><a href="${base}">${admin ? 'Settings' : 'All settings'}</a><a href="/console/s/${s.id}/activity">Activity</a>${admin ? html`<a class="danger-link" href="${base}/delete">Delete…</a>` : ''}</p>
<h3>Server API tokens</h3>${tokenList(c.session, `${base}/tokens`, tokens, 'server token', s.name)}</section>`;
      }),
    );
    const accountTokens = await listAccountTokens(ctx, accountId);
    const body = html`${admin ? html`<p><a href="/console/servers/new" class="button-link">New server</a></p>` : ''}
<p class="muted">Token values are never stored, only a one-way digest: a new token is shown once, on the page right after it is issued.</p>${sections}
${sections.length === 0 ? html`<p class="empty">No servers yet.</p>` : ''}
<section class="card" aria-labelledby="account-tokens"><h2 id="account-tokens">Account API tokens</h2><p class="muted">For senders, domains and servers (<code>X-Service-Account-Token</code>).</p>
${tokenList(c.session, '/console/account/tokens', accountTokens, 'account token')}</section>`;
    return page(c.frame('Servers', 'servers'), body);
  });

  r.page('/console/servers/new', async (c) => newServerPage(ctx, c, NEW_SERVER_VALUES, null));

  r.action('/console/servers', async (c) => {
    const values = formValuesFrom(c.body);
    try {
      const { row, token } = await createAccountServer(ctx, c.session.user.accountId, serverInput(values));
      // The new server's first token, shown this once as every issued token is.
      return issuedPage(c, `Server ${row.name} created`, 'X-Service-Server-Token', token, row.id);
    } catch (err) {
      const error = formError(err, serverFieldOf);
      c.reply.status(422);
      return newServerPage(ctx, c, values, error);
    }
  });
}
