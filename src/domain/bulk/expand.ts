// The 'bulk-expand' job: compiles one page of a bulk request into ordinary messages (compile.ts) and stores
// them exactly as POST /email does (accepting/store.ts: message, recipients, Processed event with its
// webhooks and statistics, delivery jobs on the bulk queue), marks the page done, adds to the request's
// counters and finishes the job, all in ONE transaction. A worker killed before the commit leaves the page
// undone and the job leased: another worker redoes the page from nothing. After the commit nothing is
// left to redo. The page row is the guard: the first statement marks it done only if it was not, so two
// workers holding the same page (a lease that ran out under a slow commit) cannot both compile it; on
// PostgreSQL the second one waits for the first's row lock and then finds it done.
import type { AppContext } from '../app-context.js';
import { completeJob } from '../../infra/jobs/complete.js';
import type { Job } from '../../infra/jobs/types.js';
import { checkMessage, loadCheckData } from '../accepting/checks.js';
import { newMessageId } from '../accepting/message-id.js';
import { storeMessages, type AcceptedMessage } from '../accepting/store.js';
import type { PreparedMessage } from '../accepting/types.js';
import { ApiError } from '../errors.js';
import { attachmentList, compiler } from './compile.js';
import type { BulkContent, BulkEntry } from './content.js';
import { BULK_DELIVER_QUEUE, type ExpandPayload } from './jobs.js';

export interface PageResult {
  compiled: number;
  skipped: number;
  failed: number;
}

export async function expandPage(ctx: AppContext, job: Job): Promise<PageResult | null> {
  const { bulkId, page } = JSON.parse(job.payload) as ExpandPayload;
  const now = ctx.clock.now();
  let stream = '';
  const result = await ctx.db.transaction().execute(async (trx): Promise<PageResult | null> => {
    const mine = await trx.updateTable('bulk_pages').set({ done_at: now }).where('bulk_id', '=', bulkId).where('page', '=', page).where('done_at', 'is', null).executeTakeFirst();
    const bulk = await trx
      .selectFrom('bulk_requests')
      .innerJoin('servers', 'servers.id', 'bulk_requests.server_id')
      .select(['bulk_requests.server_id', 'bulk_requests.stream_id', 'bulk_requests.status', 'bulk_requests.content', 'bulk_requests.attachments', 'servers.account_id'])
      .where('bulk_requests.id', '=', bulkId)
      .executeTakeFirst();
    if (Number(mine.numUpdatedRows) === 0 || !bulk || bulk.status === 'Failed') {
      await completeJob(trx, job.id);
      return null;
    }
    stream = bulk.stream_id;
    const { entries } = await trx.selectFrom('bulk_pages').select('entries').where('bulk_id', '=', bulkId).where('page', '=', page).executeTakeFirstOrThrow();
    const sender = { accountId: bulk.account_id, serverId: bulk.server_id };
    const counts: PageResult = { compiled: 0, skipped: 0, failed: 0 };
    const messages: PreparedMessage[] = [];
    try {
      const compile = await compiler(trx, bulk.server_id, JSON.parse(bulk.content) as BulkContent, attachmentList(bulk.attachments));
      for (const entry of JSON.parse(entries) as BulkEntry[]) {
        try {
          messages.push(compile(entry));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          counts.failed++;
        }
      }
      const accepted: AcceptedMessage[] = [];
      if (messages.length > 0) {
        const data = await loadCheckData(trx, messages.map((message) => ({ sender, message })));
        // What concerns the whole request (the sender, the stream, the server) fails it; inactive recipients
        // are each message's own matter: left out, and an entry left with nobody is skipped and counted.
        const refusal = checkMessage(data, sender, { ...messages[0], recipients: [] });
        if (refusal) throw refusal;
        for (const m of messages) {
          const recipients = m.recipients.filter((r) => !data.suppressed.has(`${sender.serverId}|${m.streamId}|${r.key}`));
          if (recipients.length === 0) {
            counts.skipped++;
            continue;
          }
          accepted.push({ id: newMessageId(now), serverId: sender.serverId, message: { ...m, recipients }, settings: data.servers.get(sender.serverId)!, bulk: { id: bulkId, queue: BULK_DELIVER_QUEUE } });
        }
      }
      counts.compiled = accepted.length;
      await storeMessages(trx, ctx, accepted, now);
    } catch (err) {
      // The content or the sender cannot be used any more (template deleted, signature or stream gone): the
      // request fails; the pages not yet compiled are not sent.
      if (!(err instanceof ApiError)) throw err;
      await trx.updateTable('bulk_requests').set({ status: 'Failed', reason: err.message, completed_at: now }).where('id', '=', bulkId).execute();
      await completeJob(trx, job.id);
      return null;
    }
    await trx
      .updateTable('bulk_requests')
      .set((eb) => ({
        pages_done: eb('pages_done', '+', 1),
        compiled: eb('compiled', '+', counts.compiled),
        skipped: eb('skipped', '+', counts.skipped),
        failed: eb('failed', '+', counts.failed),
        status: 'Processing',
      }))
      .where('id', '=', bulkId)
      .where('status', 'in', ['Accepted', 'Processing'])
      .execute();
    await completeJob(trx, job.id);
    return counts;
  });
  if (result && result.compiled > 0) {
    ctx.runner.wake();
    ctx.metrics.messagesAccepted.inc({ stream, source: 'bulk' }, result.compiled);
  }
  return result;
}
