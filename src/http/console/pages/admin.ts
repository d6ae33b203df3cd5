// Servers (settings: retention, tracking defaults, SMTP on or off; tokens in tokens.ts) and the account's
// tokens; sender signatures and domains are in senders.ts. Everyone may look; only admins change (checked per
// action by the router, not only hidden here).
import type { AppContext } from '../../../domain/app-context.js';
import { getAccountServer, updateAccountServer } from '../../../domain/servers/account-servers.js';
import { TRACK_LINKS } from '../../../domain/servers/server-settings.js';
import { listAccountTokens } from '../../../domain/tokens/account-tokens.js';
import { listServerTokens } from '../../../domain/tokens/server-tokens.js';
import { html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';
import { registerSenders } from './senders.js';
import { registerTokens, tokenList } from './tokens.js';

export function registerAdmin(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/servers', async (c) => {
    const admin = c.session.user.role === 'admin';
    const accountId = c.session.user.accountId;
    const sections = await Promise.all(
      c.servers.map(async (ref) => {
        const s = await getAccountServer(ctx.db, accountId, ref.id);
        const tokens = await listServerTokens(ctx, accountId, s.id);
        const base = `/console/servers/${s.id}`;
        const dis = admin ? '' : html` disabled`;
        return html`<section class="card" aria-labelledby="server-${s.id}"><h2 id="server-${s.id}">${s.name} <span class="badge">${s.delivery_type}</span></h2>
${s.ip_pool ? html`<p class="muted">Sends from IP pool <code>${s.ip_pool}</code> (set with the API's <code>IpPool</code>).</p>` : ''}
<form method="post" action="${base}/settings" class="grid" aria-label="Settings of ${s.name}">${csrf(c.session)}
<label for="rt-${s.id}">Retention (days)</label><input id="rt-${s.id}" name="retention" type="number" min="1" max="365" value="${s.retention_days}"${dis}>
<label for="to-${s.id}">Track opens by default</label><input id="to-${s.id}" name="trackopens" type="checkbox"${s.track_opens ? html` checked` : ''}${dis}>
<label for="tl-${s.id}">Track links by default</label><select id="tl-${s.id}" name="tracklinks"${dis}>${TRACK_LINKS.map((t) => html`<option${s.track_links === t ? html` selected` : ''}>${t}</option>`)}</select>
<label for="smtp-${s.id}">SMTP sending on</label><input id="smtp-${s.id}" name="smtp" type="checkbox"${s.smtp_api_activated ? html` checked` : ''}${dis}>
${admin ? html`<span></span><button type="submit" aria-label="Save settings of ${s.name}">Save settings</button>` : ''}</form>
<h3>Server API tokens</h3>${tokenList(c.session, `${base}/tokens`, tokens, 'server token', s.name)}</section>`;
      }),
    );
    const accountTokens = await listAccountTokens(ctx, accountId);
    const body = html`<p class="muted">Token values are never stored, only a one-way digest: a new token is shown once, on the page right after it is issued.</p>${sections}
<section class="card" aria-labelledby="account-tokens"><h2 id="account-tokens">Account API tokens</h2><p class="muted">For senders, domains and servers (<code>X-Service-Account-Token</code>).</p>
${tokenList(c.session, '/console/account/tokens', accountTokens, 'account token')}</section>`;
    return page(c.frame('Servers', 'servers'), body);
  });

  r.action('/console/servers/:id/settings', async (c) => {
    const s = await updateAccountServer(ctx, c.session.user.accountId, Number(c.params.id), {
      RetentionDays: Number(c.body.retention),
      TrackOpens: c.body.trackopens === 'on',
      TrackLinks: c.body.tracklinks,
      SmtpApiActivated: c.body.smtp === 'on',
    });
    return redirectWith(c.reply, '/console/servers', { notice: `Settings of ${s.name} saved.` });
  });
  registerTokens(r, ctx);
  registerSenders(r, ctx);
}
