// Bulk: a server's bulk requests (POST /email/bulk) newest first, each with a progress bar of its
// messages (compiled, sent, delivered, bounced; src/domain/bulk/progress.ts, bounded queries), and one
// request's page: its figures and its messages 50 at a time. Subject, From, Tag, reason and recipients are
// the sender's: they reach the page only through html`` (text, never markup).
import { outcomesOf } from '../../../domain/messages/outcome.js';
import { outcomeBadge } from '../outcome-badge.js';
import type { AppContext } from '../../../domain/app-context.js';
import { getBulkRequest, listBulkMessages, listBulkRequests, MESSAGES_PER_PAGE, REQUESTS_PER_PAGE, type BulkProgress, type BulkRequestView } from '../../../domain/bulk/progress.js';
import { ConsoleRefusal } from '../guard.js';
import { html, query, type Html } from '../html.js';
import { page, when } from '../layout.js';
import type { ConsoleRouter } from '../router.js';
import { parseCursor } from './activity.js';

const n = (x: number) => x.toLocaleString('en-US');

/** The bar: delivered, bounced, compiled but not yet sent, left out (skipped or failed), not yet compiled. An SVG, since the CSP allows no inline style. */
export function progressBar(p: BulkProgress): Html {
  const total = Math.max(1, p.total);
  const parts: Array<[string, number]> = [
    ['delivered', p.delivered],
    ['bounced', p.bounced],
    ['queued', Math.max(0, p.compiled - p.sent)],
    ['left-out', p.skipped + p.failed],
  ];
  let x = 0;
  const rects = parts.map(([cls, v]) => {
    const w = (100 * v) / total;
    const r = v > 0 ? html`<rect class="bar-${cls}" x="${x.toFixed(2)}%" y="0" width="${w.toFixed(2)}%" height="100%"></rect>` : '';
    x += w;
    return r;
  });
  const label = `${n(p.compiled)} of ${n(p.total)} compiled, ${n(p.sent)} sent, ${n(p.delivered)} delivered, ${n(p.bounced)} bounced${p.skipped + p.failed ? `, ${n(p.skipped + p.failed)} left out` : ''}`;
  return html`<div class="progress"><svg class="bar" role="img" aria-label="${label}" preserveAspectRatio="none"><rect class="bar-track" x="0" y="0" width="100%" height="100%"></rect>${rects}</svg>
<div class="small muted">${label}</div></div>`;
}

const statusBadge = (b: BulkRequestView): Html => html`<span class="status status-${b.status.toLowerCase()}">${b.status}</span>`;

export function registerBulk(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/bulk', async (c) => {
    const before = parseCursor(c.query.before);
    const list = await listBulkRequests(ctx.db, c.server.id, before);
    const base = `/console/s/${c.server.id}/bulk`;
    const last = list[list.length - 1];
    const older = list.length === REQUESTS_PER_PAGE && last ? `${base}${query({ before: `${last.submittedAt}.${last.id}` })}` : null;
    const body = html`
<p class="muted">Requests sent with <code>POST /email/bulk</code>, newest first. Each recipient becomes an ordinary message (see Activity); the bar counts them: delivered, bounced, compiled and waiting, left out (inactive recipients), not yet compiled.</p>
<table class="list"><thead><tr><th scope="col">Subject</th><th scope="col">Submitted</th><th scope="col">Status</th><th scope="col">Progress</th></tr></thead><tbody>
${list.map(
  (b) => html`<tr><td><a href="${base}/${b.id}">${b.subject || '(no subject)'}</a><div class="muted small">${b.from}${b.tag ? html` · tag ${b.tag}` : ''}</div></td>
<td class="nowrap">${when(b.submittedAt)}</td><td>${statusBadge(b)}${b.reason ? html`<div class="muted small">${b.reason}</div>` : ''}</td><td class="wide">${progressBar(b.progress)}</td></tr>`,
)}</tbody></table>
${list.length === 0 ? html`<p class="empty">No bulk requests${before ? ' before these' : ''}.</p>` : ''}
<nav class="pager" aria-label="Pages">${before ? html`<a href="${base}">Newest</a>` : ''}${older ? html`<a href="${older}" rel="next">Older requests</a>` : ''}</nav>`;
    return page(c.frame('Bulk', 'bulk'), body);
  });

  r.page('/console/s/:sid/bulk/:id', async (c) => {
    const id = c.params.id!;
    const b = /^[0-9A-Za-z-]{1,64}$/.test(id) ? await getBulkRequest(ctx.db, c.server.id, id) : null;
    if (!b) throw new ConsoleRefusal(404, 'No such bulk request on this server.');
    const after = /^[0-9A-Za-z-]{1,64}$/.test(c.query.after ?? '') ? c.query.after : undefined;
    const messages = await listBulkMessages(ctx.db, c.server.id, b.id, after);
    const sandbox = c.server.delivery_type === 'Sandbox';
    const outcomes = await outcomesOf(ctx, c.server.id, messages.map((m) => ({ id: m.id, status: m.status, sandbox, recipients: m.recipients.length })));
    const base = `/console/s/${c.server.id}/bulk/${b.id}`;
    const lastMessage = messages[messages.length - 1];
    const next = messages.length === MESSAGES_PER_PAGE && lastMessage ? `${base}${query({ after: lastMessage.id })}` : null;
    const p = b.progress;
    const body = html`
<p><a href="/console/s/${c.server.id}/bulk">Back to bulk requests</a></p>
<dl class="summary">
<dt>Subject</dt><dd>${b.subject || '(no subject)'}</dd>
<dt>ID</dt><dd><code>${b.id}</code></dd>
<dt>From</dt><dd>${b.from}</dd>
<dt>Stream</dt><dd><code>${b.streamId}</code>${b.tag ? html` · tag ${b.tag}` : ''}</dd>
<dt>Submitted</dt><dd>${when(b.submittedAt)}</dd>
<dt>Status</dt><dd>${statusBadge(b)}${b.completedAt ? html` ${when(b.completedAt)}` : ''}${b.reason ? html`<div class="error">${b.reason}</div>` : ''}</dd>
<dt>Recipients</dt><dd>${n(p.total)} entries: ${n(p.compiled)} compiled, ${n(p.skipped)} skipped (inactive), ${n(p.failed)} not compiled</dd>
<dt>Progress</dt><dd>${progressBar(p)}</dd>
</dl>
<h2>Messages</h2>
<table class="list"><thead><tr><th scope="col">Received</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Status</th></tr></thead><tbody>
${messages.map(
  (m) => html`<tr><td class="nowrap">${when(m.receivedAt)}</td><td>${m.recipients.join(', ')}</td>
<td><a href="/console/s/${c.server.id}/messages/${m.id}">${m.subject || '(no subject)'}</a></td><td class="nowrap">${outcomeBadge(outcomes.get(m.id)!)}</td></tr>`,
)}</tbody></table>
${messages.length === 0 ? html`<p class="empty">${after ? 'No more messages.' : 'No messages compiled yet.'}</p>` : ''}
<nav class="pager" aria-label="Pages">${after ? html`<a href="${base}">First messages</a>` : ''}${next ? html`<a href="${next}" rel="next">Next messages</a>` : ''}</nav>`;
    return page(c.frame(`Bulk request`, 'bulk'), body);
  });
}
