// One domain: every DNS record to publish with its status, copy and verify buttons (domain-records.ts), DKIM
// rotation, the Return-Path and tracking hosts (the same call as PUT /domains/{id}, a refused host shown
// beside its field), and deletion behind a confirmation page. Verify actions are in domain-actions.ts.
import { adminsOnly, confirmCard } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { unalignedCost } from '../../../domain/domains/alignment.js';
import { deleteDomain, getDomain, updateDomain } from '../../../domain/domains/domains.js';
import { domainDetail } from '../../../domain/domains/view.js';
import { listSignatures } from '../../../domain/sender-signatures/signatures.js';
import { html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { registerDomainActions } from './domain-actions.js';
import { domainRecords } from './domain-records.js';
import { apiNamed, formError, textField, type FormError } from '../form-errors.js';
import { rowIdOf } from './row-id.js';

const HOST_FIELDS = ['ReturnPathDomain', 'CustomTrackingDomain'] as const;

interface HostForm {
  values: Record<string, string>;
  refusal: FormError;
}

async function domainPage(ctx: AppContext, c: PageCall, form?: HostForm): Promise<string> {
  const d = await getDomain(ctx, c.session.user.accountId, rowIdOf(c.params.id));
  const detail = await domainDetail(ctx, d);
  const admin = c.session.user.role === 'admin';
  const base = `/console/domains/${d.id}`;
  const value = (k: (typeof HOST_FIELDS)[number]) => form?.values[k] ?? String(detail[k] ?? '');
  const hosts = html`<form method="post" action="${base}/save" class="stack narrow" aria-label="Return-Path and tracking hosts of ${d.name}">${csrf(c.session)}
${textField({ id: 'd-rp', name: 'ReturnPathDomain', label: 'Return-Path domain', value: value('ReturnPathDomain'), error: form?.refusal, hint: `A subdomain of ${d.name} (for example pm-bounces.${d.name}) with a CNAME to ${ctx.config.returnPathDomain}. Empty: none.` })}
${textField({ id: 'd-track', name: 'CustomTrackingDomain', label: 'Tracking domain', value: value('CustomTrackingDomain'), error: form?.refusal, hint: `A host under ${d.name} (for example links.${d.name}) for open and click links. Empty: none.` })}
<button type="submit">Save hosts</button></form>`;
  const body = html`<p><a href="/console/senders">Senders &amp; domains</a> · <a href="${base}/dmarc">DMARC reports</a></p>
${d.return_path_verified ? '' : html`<p class="warn" data-alignment>Return-Path not verified: ${unalignedCost(ctx.config.returnPathDomain)}</p>`}
<h2>DNS records</h2>
<p class="muted">Publish each record at your DNS provider, then press its verify button. Values are exact: copy them whole.</p>
<div class="records">${domainRecords(detail, base, c.session, admin)}</div>
${
  admin
    ? html`<h2>DKIM key rotation</h2>
<p class="muted">A new key starts as pending beside the current one, which keeps signing until the new record is published and verified.</p>
<form method="post" action="${base}/rotate-dkim" class="inline">${csrf(c.session)}<button type="submit"${detail.DKIMUpdateStatus === 'Pending' && detail.DKIMHost ? html` disabled aria-describedby="rotate-why"` : ''}>Rotate DKIM key</button></form>
${detail.DKIMUpdateStatus === 'Pending' && detail.DKIMHost ? html` <span class="muted small" id="rotate-why">A rotation is under way: publish and verify the new key first.</span>` : ''}
<h2>Return-Path and tracking hosts</h2>${hosts}
<h2>Delete</h2><p><a href="${base}/delete" class="danger-link">Delete ${d.name}…</a></p>`
    : ''
}`;
  return page(c.frame(`Domain ${d.name}`, 'senders'), body);
}

export function registerDomainPage(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/domains/:id', (c) => domainPage(ctx, c));

  r.action('/console/domains/:id/save', async (c) => {
    const values = { ReturnPathDomain: c.body.ReturnPathDomain ?? '', CustomTrackingDomain: c.body.CustomTrackingDomain ?? '' };
    try {
      const d = await updateDomain(ctx, c.session.user.accountId, rowIdOf(c.params.id), values);
      return redirectWith(c.reply, `/console/domains/${d.id}`, { notice: `Hosts of ${d.name} saved.` });
    } catch (err) {
      const refusal = formError(err, apiNamed(HOST_FIELDS, 'ReturnPathDomain'));
      void c.reply.status(422);
      return domainPage(ctx, c, { values, refusal });
    }
  });

  r.page('/console/domains/:id/delete', async (c) => {
    adminsOnly(c.session);
    const d = await getDomain(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    const sigs = (await listSignatures(ctx, c.session.user.accountId, 500, 0)).rows.filter((s) => s.domain === d.name);
    const base = `/console/domains/${d.id}`;
    const body = confirmCard(c.session, {
      say: html`<p>Delete the domain <strong>${d.name}</strong> with its DKIM keys and DMARC reports?</p>
${sigs.length ? html`<p>Its sender signatures go with it: ${sigs.map((s, i) => html`${i ? ', ' : ''}<code class="wrap">${s.email}</code>`)}.</p>` : ''}
<p>Mail from it can no longer be sent. This cannot be undone.</p>`,
      action: `${base}/delete`,
      button: 'Delete this domain',
      cancel: base,
    });
    return page(c.frame(`Delete ${d.name}?`, 'senders'), body);
  });

  r.action('/console/domains/:id/delete', async (c) => {
    const name = await deleteDomain(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, '/console/senders', { notice: `Domain ${name} deleted.` });
  });

  registerDomainActions(r, ctx);
}
