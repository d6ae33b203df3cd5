// The account's domains at a glance (the state of each check, a link to its records) and the form that adds
// one (POST /domains: the name and an optional Return-Path host, a refused value shown beside its field).
import type { AppContext } from '../../../domain/app-context.js';
import { unalignedCost } from '../../../domain/domains/alignment.js';
import { listDomains } from '../../../domain/domains/domains.js';
import type { Session } from '../../../domain/console-users/sessions.js';
import { html, type Html } from '../html.js';
import { csrf } from '../layout.js';
import { verifiedBadge } from './domain-records.js';
import { textField, type FormError } from '../form-errors.js';

export const DOMAIN_FIELDS = ['Name', 'ReturnPathDomain'] as const;
export type DomainValues = Record<(typeof DOMAIN_FIELDS)[number], string>;

export function domainValues(body: Record<string, string>): DomainValues {
  return { Name: body.Name ?? '', ReturnPathDomain: body.ReturnPathDomain ?? '' };
}

/** The add-a-domain form; `form` carries what was typed and the refusal, after one. */
export function domainForm(session: Session, form?: { values: DomainValues; refusal: FormError }): Html {
  const v = form?.values;
  return html`<form method="post" action="/console/domains" class="stack narrow" aria-label="Add a domain">${csrf(session)}
${textField({ id: 'nd-name', name: 'Name', label: 'Domain name', value: v?.Name ?? '', error: form?.refusal, required: true, hint: 'For example example.com: mail from any address at it is signed once its DKIM key is published.' })}
${textField({ id: 'nd-rp', name: 'ReturnPathDomain', label: 'Return-Path domain (optional)', value: v?.ReturnPathDomain ?? '', error: form?.refusal, hint: 'A subdomain of it, for example pm-bounces.example.com; it can be set later.' })}
<button type="submit">Add domain</button></form>`;
}

/** Every domain of the account (up to 500), one row each with the state of its checks. */
export async function domainList(ctx: AppContext, accountId: number): Promise<Html> {
  const { rows } = await listDomains(ctx, accountId, 500, 0);
  if (rows.length === 0) return html`<p class="empty">No domains.</p>`;
  return html`<table class="list labelled" id="domains"><thead><tr><th scope="col">Domain</th><th scope="col">DKIM</th><th scope="col">Return-Path</th><th scope="col">SPF</th><th scope="col">DMARC</th><th scope="col"><span class="sr-only">Links</span></th></tr></thead><tbody>
${rows.map((d) => {
  const base = `/console/domains/${d.id}`;
  const dkim = d.dkim_update_status === 'Pending' ? html`${verifiedBadge(d.dkim_verified === 1)} <span class="muted small">(new key pending)</span>` : verifiedBadge(d.dkim_verified === 1);
  return html`<tr><td><a href="${base}"><strong>${d.name}</strong></a>${d.return_path_verified ? '' : html`<p class="warn small alignment" data-alignment>Return-Path not verified: ${unalignedCost(ctx.config.returnPathDomain)}</p>`}</td>
<td class="nowrap" data-label="DKIM">${dkim}</td><td class="nowrap" data-label="Return-Path">${d.return_path_domain ? verifiedBadge(d.return_path_verified === 1) : html`<span class="muted">not set</span>`}</td>
<td class="nowrap" data-label="SPF">${verifiedBadge(d.spf_verified === 1)}</td><td class="nowrap" data-label="DMARC">${verifiedBadge(d.dmarc_verified === 1)}${d.dmarc_policy ? html` <span class="muted small">p=${d.dmarc_policy}</span>` : ''}</td>
<td class="actions"><a href="${base}">DNS records</a> · <a href="${base}/dmarc">DMARC reports</a></td></tr>`;
})}</tbody></table>`;
}
