// Servers (settings: retention, tracking defaults, SMTP on or off; tokens issued and revoked) and, in
// senders.ts, sender signatures and domains. Everyone may look; only admins change (checked per action).
import type { AppContext } from '../../../context.js';
import { getAccountServer, updateAccountServer } from '../../../domain/servers/account-servers.js';
import { TRACK_LINKS } from '../../../domain/servers/server-settings.js';
import { issueServerToken, listServerTokens, revokeServerToken } from '../../../domain/tokens/server-tokens.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';
import { registerSenders } from './senders.js';

export function registerAdmin(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/servers', async (c) => {
    const admin = c.session.user.role === 'admin';
    const sections = await Promise.all(
      c.servers.map(async (ref) => {
        const s = await getAccountServer(ctx.db, c.session.user.accountId, ref.id);
        const tokens = await listServerTokens(ctx, c.session.user.accountId, s.id);
        const base = `/console/servers/${s.id}`;
        const dis = admin ? '' : html` disabled`;
        return html`<section class="card" aria-labelledby="server-${s.id}"><h2 id="server-${s.id}">${s.name} <span class="badge">${s.delivery_type}</span></h2>
${s.ip_pool ? html`<p class="muted">Sends from IP pool <code>${s.ip_pool}</code> (set with the API's <code>IpPool</code>).</p>` : ''}
<form method="post" action="${base}/settings" class="grid">${csrf(c.session)}
<label for="rt-${s.id}">Retention (days)</label><input id="rt-${s.id}" name="retention" type="number" min="1" max="365" value="${s.retention_days}"${dis}>
<label for="to-${s.id}">Track opens by default</label><input id="to-${s.id}" name="trackopens" type="checkbox"${s.track_opens ? html` checked` : ''}${dis}>
<label for="tl-${s.id}">Track links by default</label><select id="tl-${s.id}" name="tracklinks"${dis}>${TRACK_LINKS.map((t) => html`<option${s.track_links === t ? html` selected` : ''}>${t}</option>`)}</select>
<label for="smtp-${s.id}">SMTP sending on</label><input id="smtp-${s.id}" name="smtp" type="checkbox"${s.smtp_api_activated ? html` checked` : ''}${dis}>
${admin ? html`<span></span><button type="submit">Save settings</button>` : ''}</form>
<h3>API tokens</h3><ul class="tokens">${tokens.map(
          (t) => html`<li><code>${t.hint}</code> <span class="muted">issued ${when(t.created_at)}</span>${admin ? html` <form method="post" action="${base}/tokens/${t.id}/revoke" class="inline">${csrf(c.session)}<button type="submit" aria-label="Revoke token ending ${t.hint}">Revoke</button></form>` : ''}</li>`,
        )}</ul>
${admin ? html`<form method="post" action="${base}/tokens" class="inline">${csrf(c.session)}<button type="submit">Issue a token</button></form>` : ''}</section>`;
      }),
    );
    return page(c.frame('Servers', 'servers'), html`<p class="muted">Token values are never stored; a new token is shown once.</p>${sections}`);
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
  r.action('/console/servers/:id/tokens', async (c) => {
    const s = await getAccountServer(ctx.db, c.session.user.accountId, Number(c.params.id));
    const token = await issueServerToken(ctx, c.session.user.accountId, s.id);
    return redirectWith(c.reply, '/console/servers', { notice: `New server token for ${s.name}, shown once: ${token}` });
  });
  r.action('/console/servers/:id/tokens/:tid/revoke', async (c) => {
    await revokeServerToken(ctx, c.session.user.accountId, Number(c.params.id), Number(c.params.tid));
    return redirectWith(c.reply, '/console/servers', { notice: 'Token revoked; requests with it are refused from now on.' });
  });
  registerSenders(r, ctx);
}
