// The DNS records a domain publishes, as its detail answer (GET /domains/{id}) gives them: each with the
// host and value to copy, its verified status, and the button that checks it now. One card per record,
// not a table row, so a 400-character DKIM key wraps inside its box on a phone.
import type { Session } from '../../../domain/console-users/sessions.js';
import { html, type Html } from '../html.js';
import { csrf } from '../layout.js';

/** Verified or not, in words and colour (the colour is never the only sign). */
export function verifiedBadge(ok: boolean, no = 'not verified'): Html {
  return ok ? html`<span class="ok">verified</span>` : html`<span class="warn">${no}</span>`;
}

interface RecordCard {
  /** Id prefix of the copyable elements (unique on the page). */
  id: string;
  title: string;
  type: 'TXT' | 'CNAME';
  host: string;
  value: string;
  status: Html;
  note?: Html | string;
  /** The verify (or other) action of this record kind, with its button label. */
  action?: { path: string; label: string };
}

function copyable(id: string, text: string, what: string): Html {
  return html`<div class="copyable"><code id="${id}" class="record-value">${text}</code><button type="button" class="copy" data-copy="#${id}" aria-label="Copy ${what}">Copy</button></div>`;
}

function card(r: RecordCard, session: Session, admin: boolean): Html {
  return html`<section class="card record" aria-labelledby="${r.id}-title" data-record="${r.id}">
<h3 id="${r.id}-title">${r.title} <span class="rtype">${r.type}</span> ${r.status}</h3>
<dl class="record-fields"><dt>Host</dt><dd>${copyable(`${r.id}-host`, r.host, `the ${r.title} host`)}</dd>
<dt>${r.type === 'CNAME' ? 'Points to' : 'Value'}</dt><dd>${copyable(`${r.id}-value`, r.value, `the ${r.title} value`)}</dd></dl>
${r.note ? html`<p class="muted small">${r.note}</p>` : ''}
${admin && r.action ? html`<form method="post" action="${r.action.path}" class="inline">${csrf(session)}<button type="submit">${r.action.label}</button></form>` : ''}</section>`;
}

/** Every record of the domain detail `d` (domainDetail), in the order they are best published. */
export function domainRecords(d: Record<string, unknown>, base: string, session: Session, admin: boolean): Html {
  const s = (k: string) => String(d[k] ?? '');
  const b = (k: string) => d[k] === true;
  const cards: RecordCard[] = [];
  if (s('DKIMHost')) {
    cards.push({ id: 'dkim', title: 'DKIM key', type: 'TXT', host: s('DKIMHost'), value: s('DKIMTextValue'), status: verifiedBadge(b('DKIMVerified')), note: 'The key mail is signed with now. Keep it published.' });
  }
  if (s('DKIMPendingHost')) {
    cards.push({
      id: 'dkim-pending',
      title: s('DKIMHost') ? 'New DKIM key' : 'DKIM key',
      type: 'TXT',
      host: s('DKIMPendingHost'),
      value: s('DKIMPendingTextValue'),
      status: html`<span class="warn">pending</span>`,
      note: 'Publish this record, then verify: the key signs mail only once DNS shows it.',
      action: { path: `${base}/verify-dkim`, label: 'Verify DKIM' },
    });
  }
  if (s('DKIMRevokedHost')) {
    const safe = b('SafeToRemoveRevokedKeyFromDNS');
    cards.push({
      id: 'dkim-revoked',
      title: 'Previous DKIM key',
      type: 'TXT',
      host: s('DKIMRevokedHost'),
      value: s('DKIMRevokedTextValue'),
      status: safe ? html`<span class="ok">safe to remove</span>` : html`<span class="warn">keep for now</span>`,
      note: safe ? 'No mail signed with it is still queued: this record may leave DNS.' : 'Mail signed with it may still be on its way: keep the record until this says it is safe to remove.',
    });
  }
  if (s('ReturnPathDomain')) {
    cards.push({
      id: 'return-path',
      title: 'Return-Path',
      type: 'CNAME',
      host: s('ReturnPathDomain'),
      value: s('ReturnPathDomainCNAMEValue'),
      status: verifiedBadge(b('ReturnPathDomainVerified')),
      note: 'Aligns the envelope domain with From (DMARC SPF alignment) and brings bounces back.',
      action: { path: `${base}/verify-return-path`, label: 'Verify Return-Path' },
    });
  }
  cards.push({
    id: 'spf',
    title: 'SPF',
    type: 'TXT',
    host: s('SPFHost'),
    value: s('SPFTextValue'),
    status: verifiedBadge(b('SPFVerified')),
    note: 'A domain has one SPF record: if it already has one, add the include to it rather than publishing a second.',
    action: { path: `${base}/verify-spf`, label: 'Verify SPF' },
  });
  const policy = s('DMARCPolicy');
  cards.push({
    id: 'dmarc',
    title: 'DMARC',
    type: 'TXT',
    host: s('DMARCHost'),
    value: s('DMARCTextValue'),
    status: verifiedBadge(b('DMARCVerified')),
    note: html`A suggestion: it asks receivers for aggregate reports (shown under <a href="${base}/dmarc">DMARC reports</a>) and applies no policy.${policy ? html` Policy found: <strong>p=${policy}</strong>.` : ''}`,
    action: { path: `${base}/verify-dmarc`, label: 'Verify DMARC' },
  });
  if (s('DMARCReportAuthorizationHost')) {
    cards.push({
      id: 'dmarc-auth',
      title: 'DMARC report authorization',
      type: 'TXT',
      host: s('DMARCReportAuthorizationHost'),
      value: s('DMARCReportAuthorizationTextValue'),
      status: html`<span class="muted">operator's zone</span>`,
      note: "Published by the operator in the report domain's zone (RFC 7489 7.1), not in yours.",
    });
  }
  if (s('CustomTrackingDomain')) {
    cards.push({
      id: 'tracking',
      title: 'Tracking domain',
      type: 'CNAME',
      host: s('CustomTrackingDomain'),
      value: s('CustomTrackingCNAMEValue'),
      status: verifiedBadge(b('CustomTrackingVerified')),
      note: 'Once verified, open and click tracking links of mail from this domain use this host.',
      action: { path: `${base}/verify-tracking`, label: 'Verify tracking domain' },
    });
  }
  return html`${cards.map((r) => card(r, session, admin))}`;
}
