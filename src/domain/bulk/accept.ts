// POST /email/bulk: validates the request (validate.ts), checks what needs the database with the checks of
// POST /email (sender signature or verified domain, the stream: a Broadcasts stream of this server), compiles
// the first entry as a proof that the content renders, checks every entry's rendered Subject (compile.ts), and
// stores the request as ONE row, its entries as pages and its attachments once, with one expansion job per
// PAGES_PER_JOB pages (store.ts: in several short transactions, all or nothing): the answer (Status
// "Accepted") is sent after the last one is durable. Workers then compile the pages into messages
// (expand.ts). The walks over the entries give the event loop away in turns (turns.ts).
import type { AppContext } from '../app-context.js';
import type { NewJob } from '../../infra/jobs/enqueue.js';
import { iso } from '../../infra/time.js';
import type { SendAuth } from '../accepting/accept.js';
import { checkMessage, loadCheckData } from '../accepting/checks.js';
import { newMessageId } from '../accepting/message-id.js';
import { ApiError, ErrorCode } from '../errors.js';
import { checkSubjects, compiler } from './compile.js';
import { BULK_EXPAND_QUEUE, PAGE_SIZE, PAGES_PER_JOB, type ExpandPayload } from './jobs.js';
import { storeBulkRequest } from './store.js';
import { bulkTurns, type Turns } from './turns.js';
import { prepareBulkRequest } from './validate.js';

// The request's ID under both spellings the hosted service's official clients read: `Id` (the Node
// client, and GET /email/bulk/{id}) and `ID` (the Python client's model of this answer, as in the published
// example). The two name one value.
export interface BulkSendingResponse {
  Id: string;
  ID: string;
  Status: 'Accepted';
  SubmittedAt: string;
}

export async function submitBulk(ctx: AppContext, auth: SendAuth, body: unknown, turns: Turns = bulkTurns()): Promise<BulkSendingResponse> {
  const bulk = await prepareBulkRequest(body, turns);
  const sender = { accountId: auth.accountId, serverId: auth.serverId };
  const attachmentList = bulk.attachments.map((a) => ({ name: a.name, contentType: a.contentType, contentId: a.contentId, content: '', size: a.size, checksums: a.checksums }));
  // The first entry compiled now: a template that is missing, a layout or does not render refuses the request.
  const compile = await compiler(ctx.db, { threads: ctx.threads, waitForRoom: false }, auth.serverId, bulk.content, attachmentList);
  const first = await compile(bulk.entries[0]);
  await checkSubjects(compile, bulk.entries, turns);
  const data = await loadCheckData(ctx.db, ctx.database.sql, [{ sender, message: { ...first, recipients: [] } }]);
  const refusal = checkMessage(data, sender, { ...first, recipients: [] });
  if (refusal) throw refusal;
  const stream = data.streams.get(`${auth.serverId}|${bulk.streamId}`)!;
  if (stream.type !== 'Broadcasts') {
    throw new ApiError(
      ErrorCode.StreamSendingNotSupported,
      `The message stream '${bulk.streamId}' is a ${stream.type} stream; bulk email is sent through a Broadcasts stream (e.g. 'broadcast').`,
    );
  }
  const now = ctx.clock.now();
  const id = newMessageId(now);
  const answer: BulkSendingResponse = { Id: id, ID: id, Status: 'Accepted', SubmittedAt: iso(now)! };
  if (auth.testMode) return answer;

  const pages = Math.ceil(bulk.entries.length / PAGE_SIZE);
  const jobs: NewJob[] = [];
  for (let page = 0; page < pages; page += PAGES_PER_JOB) {
    const payload: ExpandPayload = { bulkId: id, page, pages: Math.min(PAGES_PER_JOB, pages - page) };
    jobs.push({ queue: BULK_EXPAND_QUEUE, payload, runAt: now });
  }
  const row = {
    id,
    server_id: auth.serverId,
    stream_id: bulk.streamId,
    subject: compile.subject,
    content: JSON.stringify(bulk.content),
    attachments: JSON.stringify(bulk.attachments.map((a) => ({ Name: a.name, ContentType: a.contentType, ContentID: a.contentId, ContentLength: a.size, Checksums: a.checksums }))),
    total_messages: bulk.entries.length,
    pages,
    submitted_at: now,
  };
  await storeBulkRequest(ctx, { row, entries: bulk.entries, attachments: bulk.attachments, jobs, now }, turns);
  ctx.metrics.bulkRequestsAccepted.inc();
  ctx.runner.wake();
  return answer;
}
