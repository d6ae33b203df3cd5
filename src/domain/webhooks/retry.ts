// Retrying a failed webhook delivery by hand (the console's "Retry" button): the notification becomes pending
// again and gets a new job, in one transaction, so the retry is either fully queued or not at all. It gets
// one more attempt (a notification that has used up its schedule fails again at once if that one fails).
import type { AppContext } from '../app-context.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { ApiError, ErrorCode } from '../errors.js';
import { webhookJob } from './queue.js';

export async function retryNotification(ctx: AppContext, serverId: number, webhookId: number, notificationId: number): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const res = await trx
      .updateTable('webhook_notifications')
      .set({ status: 'pending', next_attempt_at: now, completed_at: null })
      .where('id', '=', notificationId)
      .where('webhook_id', '=', webhookId)
      .where('server_id', '=', serverId)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new ApiError(ErrorCode.NotFound, 'No failed delivery with that id on this webhook (it may have been retried already).');
    await enqueueJobs(trx, [webhookJob(notificationId, webhookId, now)], now);
  });
  ctx.runner.wake();
}
