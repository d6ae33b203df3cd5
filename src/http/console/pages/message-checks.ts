// The message page's checks: three tabs under "Checks". The HTML check and the spam check are read on
// opening their tab (local work: the caniemail data, the configured spamd); the link check makes requests to
// the sender's URLs, so it runs only on a button (a POST with the CSRF token, viewers allowed: it changes
// nothing) and its answer is shown, not stored. Every value that comes from the message (URLs, spamd's
// descriptions) goes through the escaping template; caniemail's HTML descriptions are not rendered.
import type { AppContext } from '../../../domain/app-context.js';
import { familyName, platformName, type CheckWarning } from '../../../domain/message-checks/caniemail-data.js';
import { runHtmlCheck } from '../../../domain/message-checks/html-check-run.js';
import type { LinkCheckResponse } from '../../../domain/message-checks/link-check.js';
import { spamCheck, spamCheckConfigured } from '../../../domain/message-checks/spam-check.js';
import { deliverabilityCheck } from '../../../domain/message-checks/deliverability-check.js';
import { html, query, type Html } from '../html.js';
import { csrf } from '../layout.js';
import type { PageCall } from '../router.js';

export type CheckTab = 'html' | 'links' | 'spam' | 'deliverability';

const pct = (n: number) => `${n.toFixed(1)}%`;

function supportBar(s: { Supported: number; Partial: number; Unsupported: number }, label: string): Html {
  return html`<svg class="bar check-bar" role="img" aria-label="${label}: ${pct(s.Supported)} supported, ${pct(s.Partial)} partial, ${pct(s.Unsupported)} not supported" preserveAspectRatio="none"><rect class="bar-track" x="0" y="0" width="100%" height="100%"></rect><rect class="bar-delivered" x="0" y="0" width="${s.Supported}%" height="100%"></rect><rect class="bar-partial" x="${s.Supported}%" y="0" width="${s.Partial}%" height="100%"></rect><rect class="bar-bounced" x="${s.Supported + s.Partial}%" y="0" width="${s.Unsupported}%" height="100%"></rect></svg>`;
}

/** The client families, each with its platforms, where the feature is not supported, or only in part. */
function byFamily(w: CheckWarning, support: 'no' | 'partial'): string {
  const families = new Map<string, Set<string>>();
  for (const r of w.Results) {
    if (r.Support !== support) continue;
    const set = families.get(r.Family) ?? new Set<string>();
    set.add(platformName(r.Platform));
    families.set(r.Family, set);
  }
  return [...families].map(([f, platforms]) => `${familyName(f)} (${[...platforms].join(', ')})`).join('; ');
}

async function htmlPanel(ctx: AppContext, htmlBody: string): Promise<Html> {
  if (!htmlBody) return html`<p class="muted">The message has no HTML part to check.</p>`;
  const r = await runHtmlCheck(ctx.threads, htmlBody);
  const t = r.Total;
  const rows = r.Warnings.filter((w) => w.Score.Unsupported > 0 || w.Score.Partial > 0);
  return html`<div class="check-total"><p><strong>${pct(t.Supported)}</strong> supported, ${pct(t.Partial)} partial, ${pct(t.Unsupported)} not supported <span class="muted">(${t.Nodes} HTML elements, ${t.Tests} tests; caniemail.com data)</span></p>${supportBar(t, 'Overall')}</div>
${
  rows.length
    ? html`<table class="list checks" aria-label="Features with limited support"><thead><tr><th>Feature</th><th>Found</th><th>Support</th><th>Not supported in</th><th>Partly supported in</th></tr></thead><tbody>${rows.map(
        (w) =>
          html`<tr><td><strong>${w.Title}</strong> <span class="muted">${w.Category}</span>${w.URL ? html` <a href="${w.URL}" target="_blank" rel="noopener noreferrer">caniemail</a>` : ''}</td><td><span class="narrow-label">Found: </span>${w.Score.Found}</td><td>${supportBar(w.Score, w.Title)}<span class="small muted">${pct(w.Score.Supported)} yes, ${pct(w.Score.Partial)} partial, ${pct(w.Score.Unsupported)} no</span></td><td class="small"><span class="narrow-label">Not supported in: </span>${byFamily(w, 'no') || (w.Slug === 'html-script' ? 'every email client' : '-')}</td><td class="small"><span class="narrow-label">Partly supported in: </span>${byFamily(w, 'partial') || '-'}</td></tr>`,
      )}</tbody></table>`
    : html`<p>No feature with limited support was found.</p>`
}`;
}

function linksPanel(c: PageCall, action: string, result: LinkCheckResponse | null, follow: boolean): Html {
  const form = html`<form method="post" action="${action}" class="toolbar">${csrf(c.session)}<label><input type="checkbox" name="follow" value="1"${follow ? html` checked` : ''}> Follow redirects</label><button type="submit" id="run-link-check">${result ? 'Check again' : 'Check links'}</button><span class="small muted">Requests each link and image URL of the message (private addresses are refused).</span></form>`;
  if (!result) return form;
  return html`${form}
<p>${result.Links.length} links checked, <strong>${result.Errors}</strong> ${result.Errors === 1 ? 'error' : 'errors'}.</p>
${
  result.Links.length
    ? html`<table class="list checks" aria-label="Links"><thead><tr><th>Status</th><th>URL</th></tr></thead><tbody>${result.Links.map(
        (l) => html`<tr class="${l.StatusCode >= 400 || l.StatusCode === 0 ? 'link-bad' : 'link-ok'}"><td><strong>${l.StatusCode || '-'}</strong> ${l.Status}</td><td><code>${l.URL}</code></td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">The message has no http or https links.</p>`
}`;
}

async function spamPanel(ctx: AppContext, serverId: number, messageId: string): Promise<Html> {
  if (!spamCheckConfigured(ctx)) return html`<p class="muted">The spam check is not configured: set MAILROOM_SPAMD to the host:port of a SpamAssassin spamd.</p>`;
  const r = await spamCheck(ctx, { serverId }, messageId);
  if (r.Error) return html`<p class="error">SpamAssassin could not check the message: ${r.Error}</p>`;
  return html`<p>Score <strong>${r.Score}</strong> ${r.IsSpam ? html`<span class="status status-failed">spam</span>` : html`<span class="status status-completed">not spam</span>`} <span class="muted">(spam at 5 or more)</span></p>
${
  r.Rules?.length
    ? html`<table class="list checks" aria-label="SpamAssassin rules"><thead><tr><th>Score</th><th>Rule</th><th>Description</th></tr></thead><tbody>${r.Rules.map((x) => html`<tr><td><span class="narrow-label">Score: </span>${x.Score}</td><td><code>${x.Name}</code></td><td>${x.Description}</td></tr>`)}</tbody></table>`
    : html`<p class="muted">No rule matched.</p>`
}`;
}

async function deliverabilityPanel(ctx: AppContext, serverId: number, messageId: string): Promise<Html> {
  const r = await deliverabilityCheck(ctx, { serverId }, messageId);
  const a = r.Alignment;
  return html`<h3>DKIM</h3>${
    r.DKIM.Signatures.length
      ? html`<table class="list checks" aria-label="DKIM signatures"><thead><tr><th>Domain</th><th>Selector</th><th>Identity</th><th>Result</th></tr></thead><tbody>${r.DKIM.Signatures.map((x) => html`<tr><td>${x.Domain}</td><td>${x.Selector}</td><td>${x.Identity}</td><td>${x.Result}${x.Comment ? ` (${x.Comment})` : ''}</td></tr>`)}</tbody></table>`
      : html`<p class="muted">Not signed yet${r.DKIM.WouldSignWith ? `: delivery will sign with ${r.DKIM.WouldSignWith}` : ': the From domain has no verified DKIM key'}.</p>`
  }
<h3>Alignment</h3><p>From domain <code>${a.FromDomain}</code> · envelope (Return-Path) domain <code>${a.EnvelopeDomain}</code> ${a.Aligned ? html`<span class="ok">aligned</span>` : html`<span class="warn">not aligned</span>`}</p>${a.Cost ? html`<p class="warn" data-alignment>${a.Cost}</p>` : ''}
<h3>Header lines</h3>${r.Headers.Overlong.length ? html`<ul>${r.Headers.Overlong.map((h) => html`<li><code>${h.Name}</code>: ${h.Length} characters (over ${r.Headers.Limit})</li>`)}</ul>` : html`<p class="muted">Every header line is within ${r.Headers.Limit} characters.</p>`}
<h3>Tracking</h3><p>Opens ${r.Tracking.TrackOpens ? 'tracked' : 'not tracked'} · links: ${r.Tracking.TrackLinks}</p>${
    r.Tracking.Tracked.length || r.Tracking.Untracked.length
      ? html`<table class="list checks" aria-label="Tracked links"><thead><tr><th>Link</th><th>Rewritten</th></tr></thead><tbody>${r.Tracking.Tracked.map((l) => html`<tr><td class="wrap">${l}</td><td>click redirect</td></tr>`)}${r.Tracking.Untracked.map((l) => html`<tr><td class="wrap">${l.Link}</td><td>left as it is: ${l.Reason}</td></tr>`)}</tbody></table>`
      : ''
  }`;
}

/** The "Checks" section: tab links, and the open tab's panel. */
export async function checksSection(ctx: AppContext, c: PageCall, m: { MessageID: string; HtmlBody: string }, o: { tab: CheckTab | null; links?: LinkCheckResponse; follow?: boolean }): Promise<Html> {
  const base = `/console/s/${c.server.id}/messages/${m.MessageID}`;
  const tabs: Array<[CheckTab, string]> = [
    ['html', 'HTML check'],
    ['links', 'Link check'],
    ['spam', 'Spam check'],
    ['deliverability', 'Deliverability'],
  ];
  const panel =
    o.tab === 'html'
      ? await htmlPanel(ctx, m.HtmlBody)
      : o.tab === 'links'
        ? linksPanel(c, `${base}/link-check#checks`, o.links ?? null, o.follow ?? false)
        : o.tab === 'spam'
          ? await spamPanel(ctx, c.server.id, m.MessageID)
          : o.tab === 'deliverability'
            ? await deliverabilityPanel(ctx, c.server.id, m.MessageID)
            : html`<p class="muted">Choose a check: HTML and CSS support across email clients, broken links, or SpamAssassin's score.</p>`;
  return html`<h2 id="checks">Checks</h2>
<nav class="subtabs" aria-label="Message checks">${tabs.map(([id, label]) => html`<a href="${base}${query({ check: id })}#checks"${o.tab === id ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>
<section class="check-panel" aria-label="${tabs.find(([id]) => id === o.tab)?.[1] ?? 'Checks'}">${panel}</section>`;
}

export const checkTab = (v: string | undefined): CheckTab | null => (v === 'html' || v === 'links' || v === 'spam' || v === 'deliverability' ? v : null);
