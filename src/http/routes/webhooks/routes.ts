import type { AppContext } from '../../../domain/app-context.js';
import { MAX_ROW_ID } from '../../pagination.js';
import { serverAuth, type App } from '../../types.js';
import { listAttempts } from '../../../domain/webhooks/attempts.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateSecret, updateWebhook, webhookNotFound } from '../../../domain/webhooks/store.js';
import { webhookView } from '../../../domain/webhooks/view.js';
import { DeliveriesQuery, IdParams, ListQuery, WebhookBody } from './schemas.js';

const tags = ['webhooks'];
const security = [{ serverToken: [] }];

/** A path id that is not a positive integer names no webhook. */
function webhookId(text: string): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1 || Number(text) > MAX_ROW_ID) throw webhookNotFound();
  return Number(text);
}

/** Webhooks of the token's server (docs/reference/webhooks.md). */
export default async function webhookRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get('/webhooks', { config: { auth: 'server' }, schema: { tags, security, querystring: ListQuery } }, async (req) => {
    const rows = await listWebhooks(ctx, serverAuth(req.auth).serverId, req.query.messagestream);
    return { Webhooks: rows.map(webhookView) };
  });

  app.get('/webhooks/:id', { config: { auth: 'server' }, schema: { tags, security, params: IdParams } }, async (req) =>
    webhookView(await getWebhook(ctx, serverAuth(req.auth).serverId, webhookId(req.params.id))),
  );

  app.post('/webhooks', { config: { auth: 'server' }, schema: { tags, security, body: WebhookBody } }, async (req) => {
    const { row, secret } = await createWebhook(ctx, serverAuth(req.auth).serverId, req.body);
    return { ...webhookView(row), SigningSecret: secret };
  });

  app.put('/webhooks/:id', { config: { auth: 'server' }, schema: { tags, security, params: IdParams, body: WebhookBody } }, async (req) =>
    webhookView(await updateWebhook(ctx, serverAuth(req.auth).serverId, webhookId(req.params.id), req.body)),
  );

  app.delete('/webhooks/:id', { config: { auth: 'server' }, schema: { tags, security, params: IdParams } }, async (req) => {
    const id = webhookId(req.params.id);
    await deleteWebhook(ctx, serverAuth(req.auth).serverId, id);
    return { ErrorCode: 0, Message: `Webhook ${id} removed.` };
  });

  app.post('/webhooks/:id/rotate-secret', { config: { auth: 'server' }, schema: { tags, security, params: IdParams } }, async (req) => {
    const id = webhookId(req.params.id);
    return { ID: id, SigningSecret: await rotateSecret(ctx, serverAuth(req.auth).serverId, id) };
  });

  app.get('/webhooks/:id/deliveries', { config: { auth: 'server' }, schema: { tags, security, params: IdParams, querystring: DeliveriesQuery } }, async (req) => {
    const hook = await getWebhook(ctx, serverAuth(req.auth).serverId, webhookId(req.params.id));
    return listAttempts(ctx, hook.id, req.query.count ?? 50, req.query.offset ?? 0);
  });
}
