// Worker-role registration of inbound processing (src/worker.ts): the 'inbound-hook' queue and the
// retention of inbound messages (the server's RetentionDays, as for outbound messages).
import type { AppContext } from '../app-context.js';
import { DAY_MS } from '../../infra/time.js';
import { inboundHookHandler } from './hook-delivery.js';

export const INBOUND_PURGE_EVERY_MS = 15 * 60_000;
const BATCH = 500;

/** Deletes inbound messages older than their server's retention period (attempts go by cascade). */
export async function purgeInboundMessages(ctx: AppContext, now: number): Promise<number> {
  const servers = await ctx.db.selectFrom('servers').select(['id', 'retention_days']).execute();
  let deleted = 0;
  for (const s of servers) {
    const cutoff = now - s.retention_days * DAY_MS;
    for (;;) {
      const ids = await ctx.db.selectFrom('inbound_messages').select('id').where('server_id', '=', s.id).where('received_at', '<', cutoff).limit(BATCH).execute();
      if (ids.length === 0) break;
      const r = await ctx.db
        .deleteFrom('inbound_messages')
        .where(
          'id',
          'in',
          ids.map((i) => i.id),
        )
        .executeTakeFirst();
      deleted += Number(r.numDeletedRows);
      if (ids.length < BATCH) break;
    }
  }
  return deleted;
}

export function registerInbound(ctx: AppContext): () => Promise<void> {
  const handler = inboundHookHandler(ctx);
  ctx.runner.register(handler);
  ctx.scheduler.add({ name: 'inbound-messages-purge', everyMs: INBOUND_PURGE_EVERY_MS, run: async (now) => void (await purgeInboundMessages(ctx, now)) });
  return async () => handler.close();
}
