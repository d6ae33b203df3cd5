// The inbound messages of one server (GET /messages/inbound, .../details) and the two ways to post one
// again: bypass (a Blocked message, past its rule or spam score) and retry (a Failed one). Every query is
// filtered by the caller's server id.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { iso, parseFilterDate } from '../../infra/time.js';
import { ApiError, ErrorCode, ServiceBusy } from '../errors.js';
import { PoolFull, WorkerLost, taskModule } from '../../infra/threads/pool.js';
import { parsedPayload } from './content-task.js';
import { inboundHookJob, INBOUND_STATUS } from './hook-queue.js';
import type { InboundPayload } from './payload.js';

export interface InboundFilters {
  count: number;
  offset: number;
  recipient?: string;
  fromemail?: string;
  tag?: string;
  subject?: string;
  mailboxhash?: string;
  status?: string;
  fromdate?: string;
  todate?: string;
}

function dateFilter(text: string | undefined, end: boolean, name: string): number | null {
  if (text === undefined || text === '') return null;
  const at = parseFilterDate(text, end);
  if (at === null) throw new ApiError(ErrorCode.MessageQueryError, `${name} is not a date: '${text}'.`);
  return at;
}

const STATUS_BY_LOWER = new Map(Object.entries(INBOUND_STATUS));

interface Row {
  id: string;
  status: string;
  payload: string;
  received_at: number;
  blocked_reason: string;
}

/** The search item: the hosted service's InboundMessage (no bodies, attachments without content). */
export function summary(r: Row) {
  const p = JSON.parse(r.payload) as InboundPayload;
  return {
    From: p.From,
    FromName: p.FromName,
    FromFull: p.FromFull,
    To: p.To,
    ToFull: p.ToFull,
    Cc: p.Cc,
    CcFull: p.CcFull,
    Bcc: p.Bcc,
    BccFull: p.BccFull,
    ReplyTo: p.ReplyTo,
    OriginalRecipient: p.OriginalRecipient,
    Subject: p.Subject,
    Date: p.Date,
    MailboxHash: p.MailboxHash,
    Tag: p.Tag,
    MessageID: r.id,
    Status: r.status,
    ReceivedAt: iso(r.received_at),
    Attachments: p.Attachments.map(({ Content: _c, ...a }) => a),
    MessageStream: p.MessageStream,
  };
}

export type InboundFilterFields = Omit<InboundFilters, 'count' | 'offset'>;

/** The server's inbound messages narrowed by the API's filters (a 422 for an unknown status or a bad date). */
export function filteredInbound(ctx: AppContext, serverId: number, f: InboundFilterFields) {
  let status: string | undefined;
  if (f.status) {
    status = STATUS_BY_LOWER.get(f.status.toLowerCase());
    if (!status) throw new ApiError(ErrorCode.MessageQueryError, `Unknown status '${f.status}': use ${Object.keys(INBOUND_STATUS).join(', ')}.`);
  }
  const from = dateFilter(f.fromdate, false, 'fromdate');
  const to = dateFilter(f.todate, true, 'todate');
  let q = ctx.db.selectFrom('inbound_messages').where('server_id', '=', serverId);
  if (status) q = q.where('status', '=', status);
  if (f.recipient) q = q.where(ctx.database.sql.contains(sql.ref('recipients'), f.recipient));
  if (f.fromemail) q = q.where(ctx.database.sql.contains(sql.ref('from_email'), f.fromemail));
  if (f.subject) q = q.where(ctx.database.sql.contains(sql.ref('subject'), f.subject));
  if (f.tag) q = q.where('tag', '=', f.tag);
  if (f.mailboxhash) q = q.where('mailbox_hash', '=', f.mailboxhash);
  if (from !== null) q = q.where('received_at', '>=', from);
  if (to !== null) q = q.where('received_at', '<=', to);
  return q;
}

export async function searchInbound(ctx: AppContext, serverId: number, f: InboundFilters) {
  const q = filteredInbound(ctx, serverId, f);
  const [total, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q.select(['id', 'status', 'payload', 'received_at', 'blocked_reason']).orderBy('received_at', 'desc').orderBy('id', 'desc').limit(f.count).offset(f.offset).execute(),
  ]);
  return { TotalCount: Number(total.n), InboundMessages: rows.map(summary) };
}

/** Under this many characters a payload parses in about a millisecond: less than the hop to a worker. */
export const PAYLOAD_ON_LOOP_BELOW = 256 * 1024;
const CONTENT_TASK = taskModule(import.meta.url, 'content-task');

/** A stored payload parsed, on a parser thread when it is large (a 10 MB message is over 13 MB of JSON). */
async function payloadOf(ctx: AppContext, json: string, whole: boolean): Promise<InboundPayload> {
  if (json.length < PAYLOAD_ON_LOOP_BELOW) return parsedPayload({ json, whole });
  try {
    return await ctx.threads.run<InboundPayload>(CONTENT_TASK, 'parsedPayload', { json, whole });
  } catch (err) {
    if (err instanceof PoolFull || err instanceof WorkerLost) throw new ServiceBusy('Too many large messages are being read at once; ask again shortly.');
    throw err;
  }
}

async function findRow(ctx: AppContext, serverId: number, id: string) {
  const row = await ctx.db
    .selectFrom('inbound_messages')
    .select(['id', 'status', 'payload', 'received_at', 'blocked_reason', 'spam_score', 'attempts', 'last_error'])
    .where('server_id', '=', serverId)
    .where('id', '=', id.trim().toLowerCase())
    .executeTakeFirst();
  if (!row) throw new ApiError(ErrorCode.MessageNotFound, `Inbound message '${id}' not found.`);
  return row;
}

/** `whole: false`: without attachment content and the raw source (the console's page of the message). */
export async function inboundDetails(ctx: AppContext, serverId: number, id: string, o: { whole?: boolean } = {}) {
  const row = await findRow(ctx, serverId, id);
  const p = await payloadOf(ctx, row.payload, o.whole ?? true);
  const attempts = await ctx.db
    .selectFrom('inbound_attempts')
    .select(['attempt', 'outcome', 'status_code', 'error', 'started_at', 'duration_ms', 'response_excerpt'])
    .where('inbound_id', '=', row.id)
    .orderBy('attempt')
    .execute();
  return {
    ...summary(row),
    TextBody: p.TextBody,
    HtmlBody: p.HtmlBody,
    StrippedTextReply: p.StrippedTextReply,
    Headers: p.Headers,
    Attachments: p.Attachments,
    BlockedReason: row.blocked_reason,
    SpamScore: row.spam_score,
    // The delivery log (beyond the hosted service): each POST to InboundHookUrl and its answer.
    HookAttempts: attempts.map((a) => ({
      Attempt: a.attempt,
      Outcome: a.outcome,
      ResponseCode: a.status_code,
      Error: a.error,
      AttemptedAt: iso(a.started_at),
      DurationMs: a.duration_ms,
      // The first 512 bytes of the application's answer (null: no answer came, or recorded before 0033).
      Response: a.response_excerpt,
    })),
  };
}

/** Queues a Blocked (bypass) or Failed (retry) message for posting again. */
async function requeue(ctx: AppContext, serverId: number, id: string, from: string, verb: string) {
  const row = await findRow(ctx, serverId, id);
  if (row.status !== from) throw new ApiError(ErrorCode.InvalidRequestFields, `Inbound message '${row.id}' is ${row.status}; only a ${from} message can be ${verb}.`);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('inbound_messages')
      .set({ status: INBOUND_STATUS.queued, attempts: 0, last_error: null })
      .where('id', '=', row.id)
      .where('status', '=', from)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw new ApiError(ErrorCode.InvalidRequestFields, `Inbound message '${row.id}' changed meanwhile; try again.`);
    await enqueueJobs(trx, [inboundHookJob(row.id, serverId, now)], now);
  });
  ctx.runner.wake();
}

export async function bypassInbound(ctx: AppContext, serverId: number, id: string) {
  await requeue(ctx, serverId, id, INBOUND_STATUS.blocked, 'bypassed');
  return { ErrorCode: 0, Message: `Successfully bypassed message: ${id}` };
}

export async function retryInbound(ctx: AppContext, serverId: number, id: string) {
  await requeue(ctx, serverId, id, INBOUND_STATUS.failed, 'retried');
  return { ErrorCode: 0, Message: `Successfully rescheduled failed message: ${id}` };
}
