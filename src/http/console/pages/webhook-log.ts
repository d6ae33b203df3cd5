// The delivery log of all a server's webhooks: each attempt, newest first, with its webhook, event, attempt
// number, outcome, response code and the notification's state; keyset pages ("Older" carries the id of the
// last attempt shown).
import type { AppContext } from '../../../domain/app-context.js';
import { listServerAttempts } from '../../../domain/webhooks/server-attempts.js';
import { html, query } from '../html.js';
import { page, when } from '../layout.js';
import type { ConsoleRouter } from '../router.js';

const PAGE_SIZE = 50;

export function registerWebhookLog(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/webhooks/deliveries', async (c) => {
    const before = /^\d{1,15}$/.test(c.query.before ?? '') ? Number(c.query.before) : undefined;
    const rows = await listServerAttempts(ctx, c.server.id, PAGE_SIZE, before);
    const base = `/console/s/${c.server.id}/webhooks`;
    const body = html`<p class="muted">Every attempt to post a notification, all webhooks of this server, newest first. Test posts are not recorded. <a href="${base}">Back to webhooks</a></p>
<table class="list labelled" id="delivery-log"><thead><tr><th scope="col">Attempted</th><th scope="col">Webhook</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Response</th><th scope="col">State</th></tr></thead><tbody>
${rows.map(
  (d) => html`<tr><td class="nowrap">${when(d.AttemptedAt)}</td><td data-label="Webhook"><a href="${base}/${d.WebhookID}" class="wrap">${d.Url}</a> <span class="muted small">${d.MessageStream}</span></td><td data-label="Event">${d.RecordType} #${d.EventID}</td><td data-label="Attempt">${d.Attempt}</td>
<td><span class="status status-${d.Status.toLowerCase()}">${d.Status}</span></td><td data-label="Response">${d.ResponseCode ?? ''} <span class="muted small">${(d.Error ?? '').slice(0, 200)}</span>${d.DurationMs !== null ? html` <span class="muted small">${d.DurationMs} ms</span>` : ''}</td>
<td data-label="State">${d.NotificationStatus}${d.NextAttemptAt ? html` (next ${when(d.NextAttemptAt)})` : ''}</td></tr>`,
)}</tbody></table>${rows.length === 0 ? html`<p class="empty">No deliveries${before ? ' older than these' : ' yet'}.</p>` : ''}
<nav class="pager" aria-label="Pages">${before ? html`<a href="${base}/deliveries">Newest</a>` : ''}${rows.length === PAGE_SIZE ? html`<a href="${base}/deliveries${query({ before: rows[rows.length - 1]!.ID })}" rel="next">Older</a>` : ''}</nav>`;
    return page(c.frame('Webhook deliveries', 'webhooks'), body);
  });
}
