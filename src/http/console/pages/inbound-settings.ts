// Inbound settings of a server: the address mail is received at (InboundAddress, with a copy button), the
// InboundHookUrl each message is posted to (edited here, with a test post of a sample message), the
// InboundDomain and the InboundSpamThreshold; the same domain call as PUT /server, a refused value said
// beside its field with the API's message.
import type { AppContext } from '../../../domain/app-context.js';
import { sendInboundTestPost } from '../../../domain/inbound/hook-test-post.js';
import { getAccountServer, updateAccountServer } from '../../../domain/servers/account-servers.js';
import { serverView } from '../../../domain/servers/server-view.js';
import { html, type Html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { besideField, byPrefix, formError, invalidAttrs, type FormError } from '../form-errors.js';
import { testPostOutcome } from './webhook-test-post.js';

/** The inbound pages' own tabs: messages, settings, rules. */
export function inboundTabs(serverId: number, current: 'messages' | 'settings' | 'rules'): Html {
  const base = `/console/s/${serverId}/inbound`;
  const tabs: Array<[string, string, string]> = [
    ['messages', base, 'Inbound messages'],
    ['settings', `${base}/settings`, 'Inbound settings'],
    ['rules', `${base}/rules`, 'Inbound rules'],
  ];
  return html`<nav class="subtabs" aria-label="Inbound">${tabs.map(([id, href, label]) => html`<a href="${href}"${id === current ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;
}

interface State {
  values?: Record<string, string>;
  error?: FormError;
  test?: Html;
}

async function settingsPage(ctx: AppContext, c: PageCall, st: State = {}): Promise<string> {
  const v = serverView(await getAccountServer(ctx.db, c.session.user.accountId, c.server.id), ctx.config, []);
  const admin = c.session.user.role === 'admin';
  const e = st.error;
  const val = (k: string, stored: string | number) => (st.values ? st.values[k] ?? '' : String(stored));
  const base = `/console/s/${c.server.id}/inbound/settings`;
  const body = html`${inboundTabs(c.server.id, 'settings')}
<div class="card"><h2>Inbound address</h2><p>Mail sent to this address (or to <code class="wrap">${v.InboundHash}+anything@…</code>, the part after the + read as the MailboxHash) is received for this server.</p>
<p class="token-line"><code id="inbound-address" class="wrap">${v.InboundAddress}</code> <button type="button" data-copy="#inbound-address" aria-label="Copy the inbound address">Copy</button></p></div>
<div class="card"><h2>InboundHookUrl</h2>${
    v.InboundHookUrl
      ? html`<p>Each inbound message is posted as JSON to <code class="wrap" id="hook-url">${v.InboundHookUrl}</code>.</p>`
      : html`<p id="hook-url-empty"><strong>No InboundHookUrl is set:</strong> inbound messages are kept for the API and the console only, not posted anywhere.</p>`
  }${
    admin && v.InboundHookUrl
      ? html`<form method="post" action="${base}/test" class="inline">${csrf(c.session)}<button type="submit">Send a test post</button></form> <span class="muted small">A sample message, posted once; it is not stored.</span>`
      : ''
  }${st.test ?? ''}</div>
${
  admin
    ? html`<h2>Change</h2><form method="post" action="${base}" class="stack narrow" novalidate>${csrf(c.session)}
<label for="i-hook">InboundHookUrl (empty: do not post)</label><input id="i-hook" name="hookurl" type="url" maxlength="2048" value="${val('hookurl', v.InboundHookUrl)}" placeholder="https://user:password@app.example.com/inbound"${invalidAttrs(e, 'hookurl')}>${besideField(e, 'hookurl')}
<label for="i-domain">InboundDomain (your own domain whose MX points at mailroom; empty: none)</label><input id="i-domain" name="domain" maxlength="253" value="${val('domain', v.InboundDomain)}"${invalidAttrs(e, 'domain')}>${besideField(e, 'domain')}
<label for="i-spam">InboundSpamThreshold (0 to 30; 0: no spam filtering)</label><input id="i-spam" name="spam" inputmode="numeric" maxlength="4" value="${val('spam', v.InboundSpamThreshold)}"${invalidAttrs(e, 'spam')}>${besideField(e, 'spam')}
<button type="submit">Save</button></form>`
    : html`<p class="muted">InboundDomain: <code>${v.InboundDomain || '(none)'}</code>. InboundSpamThreshold: ${v.InboundSpamThreshold}. Only admins change these.</p>`
}`;
  return page(c.frame('Inbound settings', 'inbound'), body);
}

const REFUSALS: Array<[string, string]> = [
  ['InboundHookUrl', 'hookurl'],
  ['InboundSpamThreshold', 'spam'],
  ['InboundDomain', 'domain'],
];

export function registerInboundSettings(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/inbound/settings', (c) => settingsPage(ctx, c));

  r.action('/console/s/:sid/inbound/settings', async (c) => {
    const spam = (c.body.spam ?? '').trim();
    try {
      await updateAccountServer(ctx, c.session.user.accountId, c.server.id, {
        InboundHookUrl: c.body.hookurl ?? '',
        InboundDomain: c.body.domain ?? '',
        // Not a whole number: NaN, which the domain refuses in the API's words.
        InboundSpamThreshold: /^\d{1,4}$/.test(spam) ? Number(spam) : Number.NaN,
      });
    } catch (err) {
      c.reply.status(422);
      return settingsPage(ctx, c, { values: c.body, error: formError(err, byPrefix(REFUSALS, 'hookurl')) });
    }
    return redirectWith(c.reply, `/console/s/${c.server.id}/inbound/settings`, { notice: 'Inbound settings saved.' });
  });

  r.action('/console/s/:sid/inbound/settings/test', async (c) => {
    const r = await sendInboundTestPost(ctx, c.server.id);
    if (!r) return settingsPage(ctx, c, { error: { field: 'hookurl', message: 'No InboundHookUrl is set: there is nothing to post to.' } });
    return settingsPage(ctx, c, { test: testPostOutcome(r, r.payload) });
  });
}
