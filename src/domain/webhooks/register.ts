// Worker-role registration of the webhook queue and the purge of old notifications (src/worker.ts).
import type { AppContext } from '../app-context.js';
import { purgeNotifications, webhookHandler } from './deliver.js';

export function registerWebhookWorker(ctx: AppContext): () => Promise<void> {
  const handler = webhookHandler(ctx);
  ctx.runner.register(handler);
  ctx.scheduler.add({ name: 'webhook-notifications-purge', everyMs: 60 * 60_000, run: (now) => purgeNotifications(ctx, now) });
  // Stops run before the runner stops: close() only drops idle keep-alive sockets, so an attempt in flight
  // still finishes and records its outcome.
  return async () => handler.close();
}
