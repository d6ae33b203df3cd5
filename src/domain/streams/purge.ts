// The end of an archived stream (docs/reference/streams.md, "States and transitions": archived -> purged 45
// days after archiving). A periodic task deletes each due stream with everything that belongs to it: its
// messages (with their recipients, attachments, events, opens and clicks: message-store/purge.ts), their
// bounce records, queued jobs that concern them (jobs.message_id), the stream's suppressions and webhooks, and last the stream
// row itself. Daily statistics stay: the API keeps them permanently (docs/reference/api-conventions.md,
// "General rules" 4). Work is done in bounded batches, each in its own short transaction, so a stream with
// millions of messages never holds a long lock; the stream row goes last, so a crash (or the batch budget
// running out) leaves a stream that the next run simply continues.
import type { AppContext } from '../app-context.js';
import { cancelJobsOfMessages } from '../../infra/jobs/cancel.js';
import { deleteMessageRows } from '../message-store/purge.js';

export interface PurgeOptions {
  /** Rows deleted per transaction. */
  batch?: number;
  /** Batches per run and stream, so that one run stays short; the next run continues. */
  maxBatches?: number;
}

export interface PurgeResult {
  streams: number;
  messages: number;
}

export async function purgeArchivedStreams(ctx: AppContext, now: number, o: PurgeOptions = {}): Promise<PurgeResult> {
  const batch = o.batch ?? 500;
  const maxBatches = o.maxBatches ?? 20;
  const due = await ctx.db
    .selectFrom('message_streams')
    .select(['server_id', 'id'])
    .where('expected_purge_at', '<=', now)
    .where('archived_at', 'is not', null)
    .orderBy('expected_purge_at')
    .limit(50)
    .execute();
  const result: PurgeResult = { streams: 0, messages: 0 };
  for (const s of due) {
    const r = await purgeStream(ctx, s.server_id, s.id, now, batch, maxBatches);
    result.messages += r.messages;
    if (r.done) result.streams++;
  }
  if (result.streams > 0 || result.messages > 0) ctx.logger.info({ ...result }, 'purged archived message streams');
  return result;
}

async function purgeStream(ctx: AppContext, serverId: number, streamId: string, now: number, batch: number, maxBatches: number) {
  const db = ctx.db;
  let messages = 0;
  for (let i = 0; i < maxBatches; i++) {
    const ids = (
      await db.selectFrom('messages').select('id').where('server_id', '=', serverId).where('stream_id', '=', streamId).limit(batch).execute()
    ).map((r) => r.id);
    if (ids.length === 0) break;
    await db.transaction().execute(async (trx) => {
      // Queued deliveries of these messages would only fail once the messages are gone.
      await cancelJobsOfMessages(trx, ids);
      await trx.deleteFrom('bounces').where('message_id', 'in', ids).execute();
      await deleteMessageRows(trx, ids);
    });
    messages += ids.length;
  }
  const left = await db.selectFrom('messages').select('id').where('server_id', '=', serverId).where('stream_id', '=', streamId).limit(1).executeTakeFirst();
  if (left) return { messages, done: false };

  for (const table of ['suppressions', 'bounces'] as const) {
    for (;;) {
      const rows = await db.selectFrom(table).select('id').where('server_id', '=', serverId).where('stream_id', '=', streamId).limit(batch).execute();
      if (rows.length === 0) break;
      await db.deleteFrom(table).where('id', 'in', rows.map((r) => r.id)).execute();
    }
  }
  // The stream's webhooks go with it; their notifications (and attempts, by cascade) first, in batches.
  // Their queued jobs find nothing and finish (src/domain/webhooks/deliver.ts).
  const hooks = await db.selectFrom('webhooks').select('id').where('server_id', '=', serverId).where('stream_id', '=', streamId).execute();
  for (const h of hooks) {
    for (;;) {
      const rows = await db.selectFrom('webhook_notifications').select('id').where('webhook_id', '=', h.id).limit(batch).execute();
      if (rows.length === 0) break;
      await db.deleteFrom('webhook_notifications').where('id', 'in', rows.map((r) => r.id)).execute();
    }
    await db.deleteFrom('webhooks').where('id', '=', h.id).execute();
  }
  // Still due (the purge date cannot move back: unarchive refuses once it has passed).
  await db
    .deleteFrom('message_streams')
    .where('server_id', '=', serverId)
    .where('id', '=', streamId)
    .where('expected_purge_at', '<=', now)
    .execute();
  return { messages, done: true };
}
