// One message: its HTML body in a sandboxed frame (no scripts; remote images only when asked for), desktop and
// mobile widths, the text part, the headers and raw source as sent, each recipient's timeline, attachments;
// above them Mailpit's per-message actions (message-actions.ts).
import type { AppContext } from '../../../domain/app-context.js';
import { messageTimeline } from '../../../domain/messages/details.js';
import { markOpened } from '../../../domain/mailpit/inbox.js';
import { html, query, type Html } from '../html.js';
import { page, when } from '../layout.js';
import type { ConsoleRouter, PageCall } from '../router.js';
import { checksSection, checkTab } from './message-checks.js';
import { clippedPre } from '../clip.js';
import { createLinkChecker, type LinkCheckResponse } from '../../../domain/message-checks/link-check.js';
import { outcomeOf } from '../../../domain/messages/outcome.js';
import { outcomeBadge } from '../outcome-badge.js';
import { messageActions, registerMessageActions } from './message-actions.js';

/**
 * The policy of a message body: no script at all (also the `sandbox` directive, should the frame be opened
 * on its own), inline styles as mail uses them, images only as data: URLs unless the user asked for remote
 * ones (a remote image tells the sender the message was read, and where).
 */
export function bodyCsp(remoteImages: boolean): string {
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:${remoteImages ? ' https: http:' : ''}; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox`;
}

const LABELS: Record<string, string> = {
  Processed: 'Processed',
  Delivered: 'Delivered',
  Transient: 'Delivery attempt failed; will retry',
  Bounced: 'Bounced',
  Opened: 'Opened',
  LinkClicked: 'Clicked a link',
  SubscriptionChanged: 'Subscription changed',
  SpamComplaint: 'Spam complaint',
};

/**
 * A detail's value in words: an object with a Name (Client, OS, Platform) by its name and version, other
 * objects (Geo) as "Key value" pairs, lists joined; empty objects and values are left out by detailList.
 */
function readable(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(readable).filter(Boolean).join(', ');
  if (typeof v !== 'object') return String(v);
  const o = v as Record<string, unknown>;
  if (typeof o.Name === 'string') return [o.Name, o.Version, o.Company ? `(${readable(o.Company)})` : ''].filter((x) => typeof x === 'string' && x !== '').join(' ');
  return Object.entries(o)
    .map(([k, x]) => [k, readable(x)] as const)
    .filter(([, x]) => x !== '')
    .map(([k, x]) => `${k} ${x}`)
    .join(', ');
}

function detailList(details: Record<string, unknown>): Html {
  const entries = Object.entries(details)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => [k, k === 'TLS' ? tlsLine(v) : readable(v)] as const)
    .filter(([, v]) => v !== '');
  if (entries.length === 0) return html``;
  return html`<dl class="details">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** Details.TLS of a delivery attempt in words: "TLSv1.3 (cipher), certificate verified; MTA-STS enforce". */
function tlsLine(v: unknown): string {
  const t = (v ?? {}) as { Used?: boolean; Version?: string; Cipher?: string; CertificateVerified?: boolean; CertificateError?: string; MTASTSMode?: string; Result?: string };
  const parts = [t.Used ? `${t.Version ?? 'TLS'}${t.Cipher ? ` (${t.Cipher})` : ''}` : 'no TLS'];
  if (t.CertificateVerified !== undefined) parts.push(t.CertificateVerified ? 'certificate verified' : `certificate not verified${t.CertificateError ? ` (${t.CertificateError})` : ''}`);
  const policy = t.MTASTSMode ? `MTA-STS ${t.MTASTSMode}${t.Result && t.Result !== 'success' ? `: ${t.Result}` : ''}` : '';
  return parts.join(', ') + (policy ? `; ${policy}` : '');
}

function headerBlock(mime: string): string {
  const end = mime.search(/\r?\n\r?\n/);
  return end < 0 ? mime : mime.slice(0, end);
}

/** The whole of a body the page cut (clip.ts), as plain text: the browser shows it without a document. */
const plain = (c: PageCall, text: string) => c.reply.type('text/plain; charset=utf-8').header('content-disposition', 'inline').send(text);

export function registerMessage(r: ConsoleRouter, ctx: AppContext): void {
  // The page, with the link check's answer when it is the answer to the link check's button.
  const render = async (c: PageCall, linkCheck?: { links: LinkCheckResponse; follow: boolean }) => {
    const m = await messageTimeline(ctx, c.server.id, c.params.mid!);
    await markOpened(ctx, c.server, m.MessageID);
    const images = c.query.images === '1';
    const mobile = c.query.width === 'mobile';
    const base = `/console/s/${c.server.id}/messages/${m.MessageID}`;
    const attachments = await ctx.db
      .selectFrom('message_attachments')
      .select(['position', 'name', 'content_type', 'size', (eb) => eb('content', 'is not', null).as('kept')])
      .where('message_id', '=', m.MessageID)
      .orderBy('position')
      .execute();
    const recipients = m.Recipients.length ? m.Recipients : [''];
    const outcome = outcomeOf(
      { id: m.MessageID, status: m.Status, sandbox: m.Sandboxed, recipients: m.Recipients.length },
      m.Timeline.map((e) => ({ type: e.Type, recipient: e.Recipient, bounceType: typeof e.Details.Type === 'string' ? e.Details.Type : undefined })),
    );
    const timeline = recipients.map((rcpt) => {
      const events = m.Timeline.filter((e) => e.Recipient === rcpt || e.Recipient === '');
      return html`<section class="timeline" aria-label="Timeline of ${rcpt}"><h3>${rcpt}</h3><ol>${events.map(
        (e) => html`<li class="event event-${e.Type.toLowerCase()}"><span class="when">${when(e.ReceivedAt)}</span> <strong>${LABELS[e.Type] ?? e.Type}</strong>${detailList(e.Details)}</li>`,
      )}</ol></section>`;
    });
    const body = html`${await messageActions(ctx, c, m.MessageID, m.Tag)}
<dl class="summary">
  <dt>From</dt><dd>${m.From}</dd><dt>To</dt><dd>${m.To.map((t) => (t.Name ? `${t.Name} <${t.Email}>` : t.Email)).join(', ')}</dd>
  ${m.Cc.length ? html`<dt>Cc</dt><dd>${m.Cc.map((t) => t.Email).join(', ')}</dd>` : ''}${m.Bcc.length ? html`<dt>Bcc</dt><dd>${m.Bcc.map((t) => t.Email).join(', ')}</dd>` : ''}
  <dt>Received</dt><dd>${when(m.ReceivedAt)}</dd><dt>Status</dt><dd>${outcomeBadge(outcome)}${m.Sandboxed ? html` <span class="muted">(sandbox: kept here, never sent)</span>` : ''}</dd>
  <dt>Stream</dt><dd>${m.MessageStream}</dd><dt>Tag</dt><dd>${m.Tag}</dd><dt>Message ID</dt><dd><code>${m.MessageID}</code></dd>
  ${Object.keys(m.Metadata).length ? html`<dt>Metadata</dt><dd>${Object.entries(m.Metadata).map(([k, v]) => html`<span class="kv"><code>${k}</code> = ${v}</span> `)}</dd>` : ''}
</dl>
<h2>Timeline</h2>${timeline}
<h2>Content</h2>
${
  m.HtmlBody
    ? html`<div class="toolbar" role="group" aria-label="Preview options">
  <a href="${base}${query({ images: images ? '1' : '', width: '' })}"${!mobile ? html` aria-current="true"` : ''}>Desktop</a>
  <a href="${base}${query({ images: images ? '1' : '', width: 'mobile' })}"${mobile ? html` aria-current="true"` : ''}>Mobile</a>
  ${images ? html`<span>Remote images shown.</span> <a href="${base}${query({ width: mobile ? 'mobile' : '' })}">Block them</a>` : html`<span>Remote images are blocked.</span> <a href="${base}${query({ images: '1', width: mobile ? 'mobile' : '' })}" id="load-images">Load remote images</a>`}
</div>
<iframe id="html-preview" class="preview${mobile ? ' mobile' : ''}" title="HTML body of the message" sandbox src="${base}/body${query({ images: images ? '1' : '' })}"></iframe>`
    : html`<p class="muted">No HTML part.</p>`
}
<details${m.HtmlBody ? '' : html` open`}><summary>Text part</summary>${clippedPre(m.TextBody || '(no text part)', `${base}/text`, { class: 'text-part' })}</details>
<details><summary>Headers as sent</summary>${clippedPre(m.Body ? headerBlock(m.Body) : 'Not composed yet (the message is still queued).', `${base}/raw`)}</details>
<details><summary>Raw source as sent (signed; attachment content left out)</summary><div class="toolbar"><button type="button" data-copy="#raw-source">Copy</button> <a href="${base}/raw" target="_blank" rel="noopener">Plain text</a></div>${clippedPre(m.Body || 'Not composed yet.', `${base}/raw`, { id: 'raw-source' })}</details>
<h2>Attachments</h2>
${attachments.length ? html`<ul class="attachments">${attachments.map((a) => html`<li>${a.kept ? html`<a href="${base}/attachments/${a.position}" download>${a.name}</a>` : a.name} <span class="muted">(${a.content_type}, ${a.size.toLocaleString('en')} bytes)</span></li>`)}</ul>` : html`<p class="muted">None.</p>`}
${await checksSection(ctx, c, m, linkCheck ? { tab: 'links', ...linkCheck } : { tab: checkTab(c.query.check) })}`;
    return page(c.frame(m.Subject || '(no subject)', 'activity'), body);
  };
  r.page('/console/s/:sid/messages/:mid', (c) => render(c));
  registerMessageActions(r, ctx);
  // The link check requests the sender's URLs: run on the button only (a POST with the CSRF token; viewers may).
  const linkChecker = createLinkChecker(ctx);
  r.action(
    '/console/s/:sid/messages/:mid/link-check',
    async (c) => {
      const m = await messageTimeline(ctx, c.server.id, c.params.mid!);
      const follow = c.body.follow === '1';
      return render(c, { links: await linkChecker.check(m.HtmlBody, m.TextBody, follow), follow });
    },
    { adminOnly: false },
  );

  r.page('/console/s/:sid/messages/:mid/raw', async (c) => {
    const m = await messageTimeline(ctx, c.server.id, c.params.mid!);
    plain(c, m.Body || 'Not composed yet.');
  });
  r.page('/console/s/:sid/messages/:mid/text', async (c) => {
    plain(c, (await messageTimeline(ctx, c.server.id, c.params.mid!)).TextBody);
  });

  r.page('/console/s/:sid/messages/:mid/body', async (c) => {
    const m = await messageTimeline(ctx, c.server.id, c.params.mid!);
    c.reply.header('content-security-policy', bodyCsp(c.query.images === '1')).header('x-frame-options', 'SAMEORIGIN');
    return m.HtmlBody;
  });
}
