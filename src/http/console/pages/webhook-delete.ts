// Deleting a webhook: a confirmation page first (a GET that changes nothing), then a POST carrying the
// session's CSRF token, admins only (the router checks both). The same domain call as DELETE /webhooks/{id}:
// its pending notifications go with it.
import { adminsOnly, confirmCard } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { deleteWebhook, getWebhook } from '../../../domain/webhooks/store.js';
import { webhookView } from '../../../domain/webhooks/view.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';

export function webhookIdOf(text: string | undefined): number {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 31 ? n : 0;
}

export function registerWebhookDelete(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/webhooks/:wid/delete', async (c) => {
    adminsOnly(c.session);
    const w = webhookView(await getWebhook(ctx, c.server.id, webhookIdOf(c.params.wid)));
    const base = `/console/s/${c.server.id}/webhooks/${w.ID}`;
    const body = confirmCard(c.session, {
      say: html`<p>Delete the webhook that posts to <code class="wrap">${w.Url}</code> (stream <code>${w.MessageStream}</code>)?</p>
<p>Its deliveries still waiting are dropped, and nothing more is posted to it. This cannot be undone.</p>`,
      action: `${base}/delete`,
      button: 'Delete this webhook',
      cancel: base,
    });
    return page(c.frame('Delete webhook?', 'webhooks'), body);
  });

  r.action('/console/s/:sid/webhooks/:wid/delete', async (c) => {
    const w = webhookView(await getWebhook(ctx, c.server.id, webhookIdOf(c.params.wid)));
    await deleteWebhook(ctx, c.server.id, w.ID);
    return redirectWith(c.reply, `/console/s/${c.server.id}/webhooks`, { notice: `Webhook to ${w.Url} deleted.` });
  });
}
