// The recent webhook delivery attempts of one server, all its webhooks together, newest first (the console's
// delivery log; attempts.ts lists one webhook's). Attempts are kept as long as their notification
// (deliver.ts NOTIFICATION_RETENTION_MS), so this is the last month at most.
import type { AppContext } from '../app-context.js';
import { attemptView } from './attempts.js';

/** `before`: the id of the oldest attempt already shown (keyset paging: no offset to skip through). */
export async function listServerAttempts(ctx: AppContext, serverId: number, count: number, before?: number) {
  let q = ctx.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhooks as w', 'w.id', 'a.webhook_id')
    .innerJoin('webhook_notifications as n', 'n.id', 'a.notification_id')
    .select(['a.id', 'a.webhook_id', 'w.url', 'w.stream_id', 'a.notification_id', 'a.event_id', 'a.attempt', 'a.outcome', 'a.status_code', 'a.error', 'a.started_at', 'a.duration_ms', 'n.record_type', 'n.status', 'n.next_attempt_at'])
    .where('w.server_id', '=', serverId);
  if (before !== undefined) q = q.where('a.id', '<', before);
  const rows = await q.orderBy('a.id', 'desc').limit(count).execute();
  return rows.map((r) => {
    const { ID, ...rest } = attemptView(r);
    return { ID, WebhookID: r.webhook_id, Url: r.url, MessageStream: r.stream_id, ...rest };
  });
}
