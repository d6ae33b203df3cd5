// The 'bulk-expand' job: compiles a range of pages of a bulk request (jobs.ts, PAGES_PER_JOB) into ordinary
// messages (compile.ts) and stores them exactly as POST /email does (accepting/store.ts: message, recipients,
// Processed event with its webhooks and statistics, delivery jobs on the bulk queue), marks the pages done,
// adds to the request's counters and finishes the job, all in ONE transaction. A worker killed before the
// commit leaves the pages undone and the job leased: another worker redoes them from nothing. After the
// commit nothing is left to redo. The page rows are the guard: the first statement marks done only the pages
// that were not, and reads back those it marked, so two workers holding the same job (a lease that ran out
// under a slow commit) cannot both compile a page; on PostgreSQL the second one waits for the first's row
// locks and then finds the pages done.
import type { AppContext } from '../app-context.js';
import { completeJob } from '../../infra/jobs/complete.js';
import type { Job } from '../../infra/jobs/types.js';
import { checkMessage, loadCheckData } from '../accepting/checks.js';
import { newMessageId } from '../accepting/message-id.js';
import { storeMessages, type AcceptedMessage } from '../accepting/store.js';
import type { PreparedMessage } from '../accepting/types.js';
import { ApiError } from '../errors.js';
import { turnTaker } from '../templates/take-turns.js';
import { attachmentList, compiler } from './compile.js';
import type { BulkContent, BulkEntry } from './content.js';
import { BULK_DELIVER_QUEUE, PAGE_SIZE, type ExpandPayload } from './jobs.js';
import { completeIfDone } from './status.js';

export interface PageResult {
  compiled: number;
  skipped: number;
  failed: number;
}

export async function expandPage(ctx: AppContext, job: Job): Promise<PageResult | null> {
  const { bulkId, page, pages = 1 } = JSON.parse(job.payload) as ExpandPayload;
  const now = ctx.clock.now();
  let stream = '';
  let last = false;
  // The first entry of these pages that could not be compiled, named with its reason in the request's `reason`
  // (the console shows it) and the log: what acceptance cannot check without rendering every body.
  let notCompiled: string | null = null;
  const result = await ctx.db.transaction().execute(async (trx): Promise<PageResult | null> => {
    const mine = await trx
      .updateTable('bulk_pages')
      .set({ done_at: now })
      .where('bulk_id', '=', bulkId)
      .where('page', '>=', page)
      .where('page', '<', page + pages)
      .where('done_at', 'is', null)
      .returning(['page', 'entries'])
      .execute();
    const bulk = await trx
      .selectFrom('bulk_requests')
      .innerJoin('servers', 'servers.id', 'bulk_requests.server_id')
      .select(['bulk_requests.server_id', 'bulk_requests.stream_id', 'bulk_requests.status', 'bulk_requests.content', 'bulk_requests.attachments', 'bulk_requests.pages', 'bulk_requests.pages_done', 'servers.account_id'])
      .where('bulk_requests.id', '=', bulkId)
      .executeTakeFirst();
    if (mine.length === 0 || !bulk || bulk.status === 'Failed') {
      await completeJob(trx, job.id);
      return null;
    }
    stream = bulk.stream_id;
    mine.sort((a, b) => a.page - b.page);
    const sender = { accountId: bulk.account_id, serverId: bulk.server_id };
    const counts: PageResult = { compiled: 0, skipped: 0, failed: 0 };
    const messages: PreparedMessage[] = [];
    try {
      // Once per job, not per recipient: the content parsed and its templates compiled, and below the sender,
      // the stream and the server's settings (tracking, sandbox) loaded once for every message of the pages.
      // A stored template's CSS is inlined on a worker thread; when the pool is full the job waits for room
      // there (nobody waits for its answer) rather than failing entries or the request.
      const css = { threads: ctx.threads, waitForRoom: true };
      const compile = await compiler(trx, css, bulk.server_id, JSON.parse(bulk.content) as BulkContent, attachmentList(bulk.attachments));
      // Up to PAGES_PER_JOB x PAGE_SIZE renders, each within its budget (templates/render.ts) but together
      // seconds of CPU for a heavy template: other requests, /healthz included, get a turn between them.
      const takeTurn = turnTaker();
      for (const { page: number, entries } of mine) {
        for (const [i, entry] of (JSON.parse(entries) as BulkEntry[]).entries()) {
          await takeTurn();
          try {
            messages.push(await compile(entry));
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            counts.failed++;
            notCompiled ??= `Messages[${number * PAGE_SIZE + i}] not compiled: ${err.message}`;
          }
        }
      }
      const accepted: AcceptedMessage[] = [];
      if (messages.length > 0) {
        const data = await loadCheckData(trx, ctx.database.sql, messages.map((message) => ({ sender, message })));
        // What concerns the whole request (the sender, the stream, the server) fails it; inactive recipients
        // are each message's own matter: left out, and an entry left with nobody is skipped and counted.
        const refusal = checkMessage(data, sender, { ...messages[0], recipients: [] });
        if (refusal) throw refusal;
        const settings = data.servers.get(sender.serverId)!;
        const target = { id: bulkId, queue: BULK_DELIVER_QUEUE };
        const prefix = `${sender.serverId}|${messages[0].streamId}|`;
        for (const m of messages) {
          const recipients = data.suppressed.size === 0 ? m.recipients : m.recipients.filter((r) => !data.suppressed.has(prefix + r.key));
          if (recipients.length === 0) {
            counts.skipped++;
            continue;
          }
          accepted.push({ id: newMessageId(now), serverId: sender.serverId, message: recipients === m.recipients ? m : { ...m, recipients }, settings, bulk: target });
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
        pages_done: eb('pages_done', '+', mine.length),
        compiled: eb('compiled', '+', counts.compiled),
        skipped: eb('skipped', '+', counts.skipped),
        failed: eb('failed', '+', counts.failed),
        status: 'Processing',
        ...(notCompiled ? { reason: eb.fn.coalesce('reason', eb.val(notCompiled)) } : {}),
      }))
      .where('id', '=', bulkId)
      .where('status', 'in', ['Accepted', 'Processing'])
      .execute();
    await completeJob(trx, job.id);
    last = Number(bulk.pages_done) + mine.length >= Number(bulk.pages);
    return counts;
  });
  if (result && notCompiled) ctx.logger.warn({ bulkId, failed: result.failed }, notCompiled);
  if (result && result.compiled > 0) {
    ctx.runner.wake();
    ctx.metrics.messagesAccepted.inc({ stream, source: 'bulk' }, result.compiled);
  }
  // The last pages compiled: a request whose every entry was skipped (or sent already, on a Sandbox server)
  // is complete now rather than at the next 'bulk-finish' round.
  if (result && last) await completeIfDone(ctx.db, bulkId, ctx.clock.now());
  return result;
}
