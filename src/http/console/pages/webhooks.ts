// Webhooks: create and edit (URL, stream, every trigger and option, HTTP auth, headers) with a refused value
// said beside its field, a test post of any trigger's sample, each webhook's delivery log (paged, newest
// first) with a retry for failed deliveries, and signing-secret rotation; the same domain calls as /webhooks.
import type { AppContext } from '../../../domain/app-context.js';
import { listAttempts } from '../../../domain/webhooks/attempts.js';
import { retryNotification } from '../../../domain/webhooks/retry.js';
import { createWebhook, getWebhook, listWebhooks, rotateSecret, updateWebhook } from '../../../domain/webhooks/store.js';
import { sendWebhookTestPost } from '../../../domain/webhooks/test-post.js';
import type { TriggerKey } from '../../../domain/webhooks/triggers.js';
import { webhookView, type WebhookRow } from '../../../domain/webhooks/view.js';
import { html, query, type Html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { registerWebhookDelete, webhookIdOf as idOf } from './webhook-delete.js';
import { TRIGGERS, webhookForm, webhookInput, webhookRefusal, type FormState } from './webhook-form.js';
import { registerWebhookLog } from './webhook-log.js';
import { testPostOutcome, webhookTestForm } from './webhook-test-post.js';

const LOG_PAGE = 50;

/**
 * A signing secret is shown in the answer to the POST that made it, and nowhere else (like API tokens,
 * tokens.ts): not in a redirect's flash cookie, not on a later page.
 */
function secretShown(c: PageCall, title: string, back: string, secret: string, note: string): string {
  return page(
    c.frame(title, 'webhooks'),
    html`<div class="card issued"><p><strong>Copy the signing secret now.</strong> It is shown only on this page, only this once.${note}</p>
<p class="token-line"><code id="new-secret" class="wrap">${secret}</code> <button type="button" data-copy="#new-secret" aria-label="Copy the signing secret">Copy</button></p></div>
<p><a href="${back}">Back to the webhook</a></p>`,
  );
}

async function listPage(ctx: AppContext, c: PageCall, st: FormState = {}): Promise<string> {
  const hooks = await listWebhooks(ctx, c.server.id);
  const base = `/console/s/${c.server.id}/webhooks`;
  const body = html`<p class="toolbar"><a href="${base}/deliveries">Delivery log of all webhooks</a></p>
<table class="list labelled"><thead><tr><th scope="col">URL</th><th scope="col">Stream</th><th scope="col">Triggers</th></tr></thead><tbody>
${hooks.map((row) => {
  const w = webhookView(row);
  return html`<tr><td><a href="${base}/${w.ID}" class="wrap">${w.Url}</a></td><td data-label="Stream"><code>${w.MessageStream}</code></td><td data-label="Triggers">${TRIGGERS.filter((k) => w.Triggers[k].Enabled).join(', ') || 'none'}</td></tr>`;
})}</tbody></table>${hooks.length === 0 ? html`<p class="empty">No webhooks.</p>` : ''}
${c.session.user.role === 'admin' ? html`<h2>New webhook</h2>${await webhookForm(ctx, c, `${base}/create`, null, st)}` : ''}`;
  return page(c.frame('Webhooks', 'webhooks'), body);
}

async function detailPage(ctx: AppContext, c: PageCall, row: WebhookRow, o: { form?: FormState; test?: Html; trigger?: string } = {}): Promise<string> {
  const w = webhookView(row);
  const offset = /^\d{1,7}$/.test(c.query.offset ?? '') ? Number(c.query.offset) : 0;
  const log = await listAttempts(ctx, row.id, LOG_PAGE, offset);
  const base = `/console/s/${c.server.id}/webhooks/${row.id}`;
  const admin = c.session.user.role === 'admin';
  const body = html`<p class="muted">Stream <code>${w.MessageStream}</code>. Requests are signed with the webhook's secret${row.previous_secret_until && row.previous_secret_until > ctx.clock.now() ? html`; the previous secret also signs until ${when(row.previous_secret_until)}` : ''}.</p>
${admin ? html`<form method="post" action="${base}/rotate" class="inline">${csrf(c.session)}<button type="submit">Rotate signing secret</button></form>
<h2>Send a test post</h2><p class="muted">A sample notification of the chosen trigger, signed and sent like a real one; it is not recorded in the log.</p>${webhookTestForm(c, base, o.trigger)}${o.test ?? ''}` : ''}
<h2>Delivery log</h2>
<table class="list labelled" id="delivery-log"><thead><tr><th scope="col">Attempted</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Response</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${log.Deliveries.map(
  (d) => html`<tr><td class="nowrap">${when(d.AttemptedAt)}</td><td data-label="Event">${d.RecordType} #${d.EventID}</td><td data-label="Attempt">${d.Attempt}</td><td><span class="status status-${d.Status.toLowerCase()}">${d.Status}</span></td>
<td data-label="Response">${d.ResponseCode ?? ''} <span class="muted small">${(d.Error ?? '').slice(0, 200)}</span></td><td data-label="State">${d.NotificationStatus}${d.NextAttemptAt ? html` (next ${when(d.NextAttemptAt)})` : ''}</td>
<td>${admin && d.NotificationStatus === 'Failed' ? html`<form method="post" action="${base}/retry" class="inline">${csrf(c.session)}<input type="hidden" name="notification" value="${d.NotificationID}"><button type="submit">Retry</button></form>` : ''}</td></tr>`,
)}</tbody></table>${log.Deliveries.length === 0 ? html`<p class="empty">No deliveries${offset ? ' here' : ' yet'}.</p>` : ''}
<nav class="pager" aria-label="Pages">${offset > 0 ? html`<a href="${base}${query({ offset: Math.max(0, offset - LOG_PAGE) || '' })}">Newer</a>` : ''}${offset + LOG_PAGE < log.TotalCount ? html`<a href="${base}${query({ offset: offset + LOG_PAGE })}" rel="next">Older</a>` : ''}</nav>
${admin ? html`<h2>Settings</h2>${await webhookForm(ctx, c, `${base}/save`, w, o.form)}<h2>Delete</h2><p><a href="${base}/delete" class="danger-link">Delete this webhook…</a></p>` : ''}`;
  return page(c.frame(`Webhook ${w.Url}`, 'webhooks'), body);
}

export function registerWebhooks(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/webhooks', (c) => listPage(ctx, c));
  registerWebhookLog(r, ctx);
  r.page('/console/s/:sid/webhooks/:wid', async (c) => detailPage(ctx, c, await getWebhook(ctx, c.server.id, idOf(c.params.wid))));
  registerWebhookDelete(r, ctx);

  // A refused value: the form again, as typed, with the API's message beside its field (422, not a redirect).
  r.action('/console/s/:sid/webhooks/create', async (c) => {
    try {
      const { row, secret } = await createWebhook(ctx, c.server.id, webhookInput(c.body));
      return secretShown(c, 'Webhook created', `/console/s/${c.server.id}/webhooks/${row.id}`, secret, '');
    } catch (err) {
      const error = webhookRefusal(err);
      c.reply.status(422);
      return listPage(ctx, c, { values: c.body, error });
    }
  });
  r.action('/console/s/:sid/webhooks/:wid/save', async (c) => {
    const cur = await getWebhook(ctx, c.server.id, idOf(c.params.wid));
    try {
      const row = await updateWebhook(ctx, c.server.id, cur.id, webhookInput({ ...c.body, stream: '' }));
      return redirectWith(c.reply, `/console/s/${c.server.id}/webhooks/${row.id}`, { notice: 'Webhook saved.' });
    } catch (err) {
      const error = webhookRefusal(err);
      c.reply.status(422);
      return detailPage(ctx, c, cur, { form: { values: c.body, error } });
    }
  });
  r.action('/console/s/:sid/webhooks/:wid/test', async (c) => {
    const row = await getWebhook(ctx, c.server.id, idOf(c.params.wid));
    const trigger = (TRIGGERS as string[]).includes(c.body.trigger ?? '') ? (c.body.trigger as TriggerKey) : 'Delivery';
    const r = await sendWebhookTestPost(ctx, row, trigger);
    return detailPage(ctx, c, row, { test: testPostOutcome(r, r.payload), trigger });
  });
  r.action('/console/s/:sid/webhooks/:wid/rotate', async (c) => {
    const id = idOf(c.params.wid);
    const secret = await rotateSecret(ctx, c.server.id, id);
    return secretShown(c, 'New signing secret', `/console/s/${c.server.id}/webhooks/${id}`, secret, ' The previous secret keeps signing too (a second signature) for 24 hours, while you switch.');
  });
  r.action('/console/s/:sid/webhooks/:wid/retry', async (c) => {
    const id = idOf(c.params.wid);
    await getWebhook(ctx, c.server.id, id);
    await retryNotification(ctx, c.server.id, id, idOf(c.body.notification));
    return redirectWith(c.reply, `/console/s/${c.server.id}/webhooks/${id}`, { notice: 'Delivery queued again.' });
  });
}
