// GET /email/bulk/{id}: the hosted client's BulkEmailStatusResponse. A request is Accepted until its first
// page is compiled, Processing while pages remain or its messages wait for delivery, Completed once every page
// is compiled and every message handed off (delivered, bounced or given up), Failed (with the reason) when its
// content or sender could no longer be used. PercentageCompleted counts entries done: messages handed off,
// plus entries skipped (inactive recipients) or not compiled. A request still being written (store.ts) is not
// found.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { iso } from '../../infra/time.js';
import { ApiError, ErrorCode } from '../errors.js';
import { STORING } from './store.js';

export type BulkStatus = 'Accepted' | 'Processing' | 'Completed' | 'Failed';

export interface BulkStatusResponse {
  Id: string;
  Status: BulkStatus;
  SubmittedAt: string;
  TotalMessages: number;
  PercentageCompleted: number;
  Subject: string;
  /** mailroom addition: why a Failed request failed. */
  FailureReason?: string;
}

/** Messages of the request still waiting for delivery (through the partial index messages_bulk). */
export async function queuedMessages(db: Kysely<Database>, bulkId: string): Promise<number> {
  const r = await db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('bulk_id', '=', bulkId).where('status', '=', 'Queued').executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** Whether any message of the request still waits for delivery: one index entry read, not a count. */
async function anyQueued(db: Kysely<Database>, bulkId: string): Promise<boolean> {
  const r = await db.selectFrom('messages').select('id').where('bulk_id', '=', bulkId).where('status', '=', 'Queued').limit(1).executeTakeFirst();
  return r !== undefined;
}

/** Marks the request Completed and drops its attachment content when nothing of it is left to send. */
export async function completeIfDone(db: Kysely<Database>, bulkId: string, now: number): Promise<boolean> {
  const b = await db.selectFrom('bulk_requests').select(['status', 'pages', 'pages_done']).where('id', '=', bulkId).executeTakeFirst();
  if (!b || b.status === 'Completed' || b.status === 'Failed' || b.pages_done < b.pages) return false;
  if (await anyQueued(db, bulkId)) return false;
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('bulk_requests').set({ status: 'Completed', completed_at: now }).where('id', '=', bulkId).where('status', '=', 'Processing').execute();
    await trx.updateTable('bulk_attachments').set({ content: null }).where('bulk_id', '=', bulkId).where('content', 'is not', null).execute();
  });
  return true;
}

/** The periodic 'bulk-finish' task: completes the requests whose last message was handed off. */
export async function finishBulkRequests(ctx: AppContext, now: number): Promise<number> {
  const open = await ctx.db.selectFrom('bulk_requests').select('id').where('status', '=', 'Processing').whereRef('pages_done', '>=', 'pages').limit(1000).execute();
  let n = 0;
  for (const { id } of open) if (await completeIfDone(ctx.db, id, now)) n++;
  // A Failed request compiles nothing more: its attachment content goes once the messages it has are out.
  const failed = await ctx.db
    .selectFrom('bulk_attachments')
    .innerJoin('bulk_requests', 'bulk_requests.id', 'bulk_attachments.bulk_id')
    .select('bulk_requests.id')
    .distinct()
    .where('bulk_requests.status', '=', 'Failed')
    .where('bulk_attachments.content', 'is not', null)
    .limit(1000)
    .execute();
  for (const { id } of failed) {
    if (!(await anyQueued(ctx.db, id))) await ctx.db.updateTable('bulk_attachments').set({ content: null }).where('bulk_id', '=', id).execute();
  }
  return n;
}

export async function getBulkStatus(ctx: AppContext, serverId: number, id: string): Promise<BulkStatusResponse> {
  const notFound = () => new ApiError(ErrorCode.NotFound, `The bulk request '${id.slice(0, 100)}' was not found.`);
  const find = () =>
    ctx.db
      .selectFrom('bulk_requests')
      .select(['id', 'status', 'reason', 'subject', 'total_messages', 'pages', 'pages_done', 'compiled', 'skipped', 'failed', 'submitted_at'])
      .where('id', '=', id)
      .where('server_id', '=', serverId)
      .where('status', '!=', STORING)
      .executeTakeFirst();
  let b = await find();
  if (!b) throw notFound();
  if (b.status === 'Processing' && b.pages_done >= b.pages && (await completeIfDone(ctx.db, id, ctx.clock.now()))) b = (await find())!;
  const queued = b.status === 'Completed' ? 0 : await queuedMessages(ctx.db, id);
  const done = b.status === 'Completed' ? b.total_messages : b.compiled - queued + b.skipped + b.failed;
  const percentage = b.total_messages === 0 ? 100 : Math.floor((10_000 * Math.max(0, done)) / b.total_messages) / 100;
  return {
    Id: b.id,
    Status: b.status as BulkStatus,
    SubmittedAt: iso(b.submitted_at)!,
    TotalMessages: b.total_messages,
    PercentageCompleted: percentage,
    Subject: b.subject,
    ...(b.status === 'Failed' && b.reason ? { FailureReason: b.reason } : {}),
  };
}
