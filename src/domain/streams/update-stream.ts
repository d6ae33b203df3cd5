// PATCH /message-streams/{id}: Name, Description and the unsubscribe handling; the type and ID never change.
import type { AppContext } from '../app-context.js';
import { checkStreamDescription, checkStreamName, checkUnsubscribeHandling } from './rules.js';
import { getStream } from './find-stream.js';
import { streamIpPool } from './ip-pool-setting.js';
import type { StreamRow } from './stream-view.js';

export async function updateStream(ctx: AppContext, serverId: number, id: string, body: Record<string, unknown>): Promise<StreamRow> {
  const row = await getStream(ctx.db, serverId, id);
  const patch: { name?: string; description?: string | null; unsubscribe_handling?: string; ip_pool?: string | null } = {};
  // null means "not given" (docs/reference/api-conventions.md, "Requests and responses").
  if (body.Name !== undefined && body.Name !== null) patch.name = checkStreamName(body.Name);
  if (body.Description !== undefined && body.Description !== null) patch.description = checkStreamDescription(body.Description);
  const handling = checkUnsubscribeHandling(body.SubscriptionManagementConfiguration, row.type);
  if (handling !== undefined) patch.unsubscribe_handling = handling;
  const ipPool = streamIpPool(ctx.config, body.IpPool, row.type);
  if (ipPool !== undefined) patch.ip_pool = ipPool;
  if (Object.keys(patch).length === 0) return row;
  const updated = await ctx.db
    .updateTable('message_streams')
    .set({ ...patch, updated_at: ctx.clock.now() })
    .where('server_id', '=', serverId)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirst();
  // Purged between the read and the write: the same answer as if it had been gone before.
  return updated ?? getStream(ctx.db, serverId, id);
}
