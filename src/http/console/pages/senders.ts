// Sender signatures and domains: the DNS records to publish (with copy buttons), verify buttons that show
// the result, DKIM rotation state, resending a confirmation; the same domain calls as /senders and /domains.
import type { AppContext } from '../../../domain/app-context.js';
import { listDomains, rotateDomainDkim, verifyDomainDkim, verifyDomainDmarc, verifyDomainReturnPath } from '../../../domain/domains/domains.js';
import { domainDetail } from '../../../domain/domains/view.js';
import { unalignedCost } from '../../../domain/domains/alignment.js';
import { listSignatures, resendConfirmation } from '../../../domain/sender-signatures/signatures.js';
import { html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';

function record(id: string, type: string, host: unknown, value: unknown) {
  if (!host || !value) return html``;
  return html`<tr><td>${type}</td><td><code>${String(host)}</code></td><td><code id="${id}" class="wrap">${String(value)}</code></td><td><button type="button" data-copy="#${id}" aria-label="Copy ${type} value for ${String(host)}">Copy</button></td></tr>`;
}

export function registerSenders(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/senders', async (c) => {
    const accountId = c.session.user.accountId;
    const admin = c.session.user.role === 'admin';
    const [{ rows: domains }, { rows: sigs }] = await Promise.all([listDomains(ctx, accountId, 500, 0), listSignatures(ctx, accountId, 500, 0)]);
    const details = await Promise.all(domains.map((d) => domainDetail(ctx, d)));
    const body = html`<h2>Domains</h2>${details.map((d) => {
      const base = `/console/domains/${String(d.ID)}`;
      return html`<section class="card"><h3>${String(d.Name)}</h3>
<p>DKIM ${d.DKIMVerified ? html`<span class="ok">verified</span>` : html`<span class="warn">not verified</span>`}${d.DKIMUpdateStatus === 'Pending' ? ' · key rotation pending: publish the new key, then verify' : ''} · Return-Path ${d.ReturnPathDomainVerified ? html`<span class="ok">verified</span>` : html`<span class="warn">not verified</span>`} · SPF ${d.SPFVerified ? html`<span class="ok">verified</span>` : html`<span class="warn">not verified</span>`} · DMARC ${d.DMARCVerified ? html`<span class="ok">verified</span>` : html`<span class="warn">not verified</span>`}${d.DMARCPolicy ? html` (p=${String(d.DMARCPolicy)})` : ''} · <a href="${base}/dmarc">DMARC reports</a></p>
${d.ReturnPathDomainVerified ? '' : html`<p class="warn" data-alignment>Return-Path not verified: ${unalignedCost(ctx.config.returnPathDomain)}</p>`}
<table class="list"><thead><tr><th scope="col">Type</th><th scope="col">Host</th><th scope="col">Value</th><th scope="col"><span class="sr-only">Copy</span></th></tr></thead><tbody>
${record(`dkim-${String(d.ID)}`, 'TXT (DKIM)', d.DKIMHost, d.DKIMTextValue)}${record(`dkim-new-${String(d.ID)}`, 'TXT (new DKIM key)', d.DKIMPendingHost, d.DKIMPendingTextValue)}${record(`rp-${String(d.ID)}`, 'CNAME (Return-Path)', d.ReturnPathDomain, d.ReturnPathDomainCNAMEValue)}${record(`spf-${String(d.ID)}`, 'TXT (SPF)', d.SPFHost, d.SPFTextValue)}${record(`dmarc-${String(d.ID)}`, 'TXT (DMARC)', d.DMARCHost, d.DMARCTextValue)}${record(`dmarc-auth-${String(d.ID)}`, 'TXT (report authorization, operator)', d.DMARCReportAuthorizationHost, d.DMARCReportAuthorizationTextValue)}
</tbody></table>
${admin ? html`<div class="buttons"><form method="post" action="${base}/verify-dkim" class="inline">${csrf(c.session)}<button type="submit">Verify DKIM</button></form>
<form method="post" action="${base}/verify-return-path" class="inline">${csrf(c.session)}<button type="submit">Verify Return-Path</button></form>
<form method="post" action="${base}/verify-dmarc" class="inline">${csrf(c.session)}<button type="submit">Verify DMARC</button></form>
<form method="post" action="${base}/rotate-dkim" class="inline">${csrf(c.session)}<button type="submit">Rotate DKIM key</button></form></div>` : ''}</section>`;
    })}${domains.length === 0 ? html`<p class="empty">No domains.</p>` : ''}
<h2>Sender signatures</h2><table class="list"><thead><tr><th scope="col">Address</th><th scope="col">Name</th><th scope="col">Confirmed</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${sigs.map((s) => html`<tr><td>${s.email}</td><td>${s.name}</td><td>${s.confirmed ? 'yes' : 'no'}</td><td>${admin && !s.confirmed ? html`<form method="post" action="/console/senders/${s.id}/resend" class="inline">${csrf(c.session)}<button type="submit">Resend confirmation</button></form>` : ''}</td></tr>`)}
</tbody></table>${sigs.length === 0 ? html`<p class="empty">No sender signatures.</p>` : ''}`;
    return page(c.frame('Senders & domains', 'senders'), body);
  });

  const verified = (ok: boolean, what: string, name: string) => (ok ? { notice: `${what} of ${name} verified.` } : { error: `${what} of ${name} is not verified yet: the DNS record was not found or does not match.` });
  r.action('/console/domains/:id/verify-dkim', async (c) => {
    const d = await verifyDomainDkim(ctx, c.session.user.accountId, Number(c.params.id));
    return redirectWith(c.reply, '/console/senders', verified(d.dkim_verified === 1, 'DKIM', d.name));
  });
  r.action('/console/domains/:id/verify-return-path', async (c) => {
    const d = await verifyDomainReturnPath(ctx, c.session.user.accountId, Number(c.params.id));
    return redirectWith(c.reply, '/console/senders', verified(d.return_path_verified === 1, 'The Return-Path', d.name));
  });
  r.action('/console/domains/:id/verify-dmarc', async (c) => {
    const d = await verifyDomainDmarc(ctx, c.session.user.accountId, Number(c.params.id));
    return redirectWith(c.reply, '/console/senders', verified(d.dmarc_verified === 1, 'The DMARC record', d.name));
  });
  r.action('/console/domains/:id/rotate-dkim', async (c) => {
    const d = await rotateDomainDkim(ctx, c.session.user.accountId, Number(c.params.id));
    return redirectWith(c.reply, '/console/senders', { notice: `A new DKIM key for ${d.name} is pending: publish it, then verify.` });
  });
  r.action('/console/senders/:id/resend', async (c) => {
    const s = await resendConfirmation(ctx, c.session.user.accountId, Number(c.params.id));
    return redirectWith(c.reply, '/console/senders', { notice: `Confirmation sent again to ${s.email}.` });
  });
}
