// Webhooks: create and edit (URL, stream, triggers, HTTP auth, headers), each webhook's delivery log with a
// retry for failed deliveries, and signing-secret rotation; the same domain calls as /webhooks.
import type { AppContext } from '../../../domain/app-context.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { listAttempts } from '../../../domain/webhooks/attempts.js';
import { retryNotification } from '../../../domain/webhooks/retry.js';
import { createWebhook, getWebhook, listWebhooks, rotateSecret, updateWebhook, type WebhookInput } from '../../../domain/webhooks/store.js';
import { defaultTriggers, type Triggers } from '../../../domain/webhooks/triggers.js';
import { webhookView } from '../../../domain/webhooks/view.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { registerWebhookDelete, webhookIdOf as idOf } from './webhook-delete.js';

const TRIGGERS = Object.keys(defaultTriggers()) as Array<keyof Triggers>;

/** The form's fields as the API's input: one checkbox per trigger, headers one "Name: Value" per line. */
function input(b: Record<string, string>): WebhookInput {
  const triggers: Record<string, { Enabled: boolean }> = {};
  for (const t of TRIGGERS) triggers[t] = { Enabled: b[`trigger_${t}`] === 'on' };
  const headers = (b.headers ?? '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => ({ Name: l.slice(0, l.indexOf(':') < 0 ? l.length : l.indexOf(':')).trim(), Value: l.indexOf(':') < 0 ? '' : l.slice(l.indexOf(':') + 1).trim() }));
  return { Url: b.url, MessageStream: b.stream || undefined, Triggers: triggers, HttpAuth: { Username: b.authuser ?? '', Password: b.authpassword ?? undefined }, HttpHeaders: headers };
}

async function form(ctx: AppContext, c: PageCall, action: string, w: ReturnType<typeof webhookView> | null) {
  const streams = (await listStreams(ctx.db, c.server.id, {})).filter((s) => s.type !== 'Inbound');
  const t = w?.Triggers ?? defaultTriggers();
  return html`<form method="post" action="${action}" class="stack narrow">${csrf(c.session)}
<label for="w-url">URL</label><input id="w-url" name="url" type="url" required value="${w?.Url ?? ''}">
${w ? '' : html`<label for="w-stream">Stream</label><select id="w-stream" name="stream">${streams.map((s) => html`<option value="${s.id}">${s.name}</option>`)}</select>`}
<fieldset><legend>Triggers</legend>${TRIGGERS.map((k) => html`<label class="check"><input type="checkbox" name="trigger_${k}"${t[k].Enabled ? html` checked` : ''}> ${k}</label>`)}</fieldset>
<label for="w-user">HTTP auth user</label><input id="w-user" name="authuser" value="${w?.HttpAuth.Username ?? ''}" autocomplete="off">
<label for="w-pass">HTTP auth password${w?.HttpAuth.Password ? ' (set; leave as is to keep)' : ''}</label><input id="w-pass" name="authpassword" type="password" value="${w?.HttpAuth.Password ?? ''}" autocomplete="new-password">
<label for="w-headers">Headers (one "Name: Value" per line)</label><textarea id="w-headers" name="headers" rows="3">${(w?.HttpHeaders ?? []).map((h) => `${h.Name}: ${h.Value}`).join('\n')}</textarea>
<button type="submit">${w ? 'Save' : 'Create webhook'}</button></form>`;
}

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

export function registerWebhooks(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/webhooks', async (c) => {
    const hooks = await listWebhooks(ctx, c.server.id);
    const body = html`<table class="list"><thead><tr><th scope="col">URL</th><th scope="col">Stream</th><th scope="col">Triggers</th></tr></thead><tbody>
${hooks.map((row) => {
  const w = webhookView(row);
  return html`<tr><td><a href="/console/s/${c.server.id}/webhooks/${w.ID}">${w.Url}</a></td><td>${w.MessageStream}</td><td>${TRIGGERS.filter((k) => w.Triggers[k].Enabled).join(', ')}</td></tr>`;
})}</tbody></table>${hooks.length === 0 ? html`<p class="empty">No webhooks.</p>` : ''}
${c.session.user.role === 'admin' ? html`<h2>New webhook</h2>${await form(ctx, c, `/console/s/${c.server.id}/webhooks/create`, null)}` : ''}`;
    return page(c.frame('Webhooks', 'webhooks'), body);
  });

  r.page('/console/s/:sid/webhooks/:wid', async (c) => {
    const row = await getWebhook(ctx, c.server.id, idOf(c.params.wid));
    const w = webhookView(row);
    const log = await listAttempts(ctx, row.id, 100, 0);
    const base = `/console/s/${c.server.id}/webhooks/${row.id}`;
    const admin = c.session.user.role === 'admin';
    const body = html`<p class="muted">Stream <code>${w.MessageStream}</code>. Requests are signed with the webhook's secret${row.previous_secret_until && row.previous_secret_until > ctx.clock.now() ? html`; the previous secret also signs until ${when(row.previous_secret_until)}` : ''}.</p>
${admin ? html`<form method="post" action="${base}/rotate" class="inline">${csrf(c.session)}<button type="submit">Rotate signing secret</button></form>` : ''}
<h2>Delivery log</h2>
<table class="list" id="delivery-log"><thead><tr><th scope="col">Attempted</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Response</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${log.Deliveries.map(
  (d) => html`<tr><td class="nowrap">${when(d.AttemptedAt)}</td><td>${d.RecordType} #${d.EventID}</td><td>${d.Attempt}</td><td><span class="status status-${d.Status.toLowerCase()}">${d.Status}</span></td>
<td>${d.ResponseCode ?? ''} <span class="muted small">${(d.Error ?? '').slice(0, 200)}</span></td><td>${d.NotificationStatus}${d.NextAttemptAt ? ` (next ${when(d.NextAttemptAt)})` : ''}</td>
<td>${admin && d.NotificationStatus === 'Failed' ? html`<form method="post" action="${base}/retry" class="inline">${csrf(c.session)}<input type="hidden" name="notification" value="${d.NotificationID}"><button type="submit">Retry</button></form>` : ''}</td></tr>`,
)}</tbody></table>${log.Deliveries.length === 0 ? html`<p class="empty">No deliveries yet.</p>` : ''}
${admin ? html`<h2>Settings</h2>${await form(ctx, c, `${base}/save`, w)}<h2>Delete</h2><p><a href="${base}/delete" class="danger-link">Delete this webhook…</a></p>` : ''}`;
    return page(c.frame(`Webhook ${w.Url}`, 'webhooks'), body);
  });

  registerWebhookDelete(r, ctx);

  r.action('/console/s/:sid/webhooks/create', async (c) => {
    const { row, secret } = await createWebhook(ctx, c.server.id, input(c.body));
    return secretShown(c, 'Webhook created', `/console/s/${c.server.id}/webhooks/${row.id}`, secret, '');
  });
  r.action('/console/s/:sid/webhooks/:wid/save', async (c) => {
    const row = await updateWebhook(ctx, c.server.id, idOf(c.params.wid), input(c.body));
    return redirectWith(c.reply, `/console/s/${c.server.id}/webhooks/${row.id}`, { notice: 'Webhook saved.' });
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
