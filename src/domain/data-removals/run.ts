// The data-removal job: removes every trace of one address across an account, in steps of small batches,
// each batch its own short transaction (sending never waits long behind a removal). Every step deletes
// what still matches, so a worker killed at any point (kill -9) leaves a job whose lease expires and whose
// next run finishes the work; the request turns Done in the transaction that deletes the job.
//
// Removed: messages sent to the address (as To, Cc or Bcc) or from it, with their recipients, attachments,
// events, opens and clicks (message-store/purge.ts); bounce records for it or from it; webhook notifications
// (and their attempts) whose payload names it; idempotency answers that name it. Kept: suppressions (so the
// address is not mailed again), sender signatures and domains (the account's own configuration), daily
// statistics (counts without addresses) and inbound report digests (one-way SHA-256 values).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { fromFlag, fromJson } from '../../infra/db/util.js';
import { completeJob } from '../../infra/jobs/complete.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import type { Job } from '../../infra/jobs/types.js';
import { deleteMessageRows } from '../message-store/purge.js';
import { SYSTEM_MAIL_QUEUE } from '../sender-signatures/system-mail-queue.js';

export interface RemovalCounts {
  messages: number;
  bounces: number;
  notifications: number;
  idempotencyKeys: number;
}

type Db = Kysely<Database>;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes batches until `batch` returns fewer than `size` rows; returns the total. */
async function inBatches(size: number, batch: () => Promise<{ found: number; deleted: number }>): Promise<number> {
  let total = 0;
  for (;;) {
    const { found, deleted } = await batch();
    total += deleted;
    if (found < size) return total;
    await pause();
  }
}

async function removeMessages(db: Db, serverId: number, streams: string[], who: string, size: number): Promise<number> {
  let total = 0;
  for (const stream of streams) {
    // Through recipients_search_lower (server_id, stream_id, lower(email)) and messages_from_time.
    const to = () =>
      db.selectFrom('message_recipients').select('message_id').distinct().where('server_id', '=', serverId).where('stream_id', '=', stream).where(sql`lower(email)`, '=', who).limit(size).execute();
    const from = () => db.selectFrom('messages').select('id as message_id').where('server_id', '=', serverId).where('stream_id', '=', stream).where('from_email', '=', who).limit(size).execute();
    for (const pick of [to, from]) {
      total += await inBatches(size, async () => {
        const ids = (await pick()).map((r) => r.message_id);
        if (ids.length === 0) return { found: 0, deleted: 0 };
        return { found: ids.length, deleted: await deleteMessageRows(db, ids, serverId) };
      });
    }
  }
  return total;
}

async function removeBounces(db: Db, serverId: number, who: string, size: number): Promise<number> {
  return inBatches(size, async () => {
    const ids = (await db.selectFrom('bounces').select('id').where('server_id', '=', serverId).where((eb) => eb.or([eb('email', '=', who), eb('from_email', '=', who)])).limit(size).execute()).map((r) => r.id);
    if (ids.length === 0) return { found: 0, deleted: 0 };
    const r = await db.deleteFrom('bounces').where('id', 'in', ids).executeTakeFirst();
    return { found: ids.length, deleted: Number(r.numDeletedRows) };
  });
}

/** Does the JSON text name the address? Compared lowercased; JSON escapes no character of an address. */
const names = (text: string, who: string) => text.toLowerCase().includes(who);

async function removeNotifications(db: Db, serverId: number, who: string, size: number): Promise<number> {
  // A payload is JSON text: read in id order, matched here, so the query is the same on both dialects.
  let after = 0;
  let total = 0;
  for (;;) {
    const rows = await db.selectFrom('webhook_notifications').select(['id', 'payload']).where('server_id', '=', serverId).where('id', '>', after).orderBy('id').limit(size).execute();
    const hit = rows.filter((r) => names(r.payload, who)).map((r) => r.id);
    if (hit.length) total += Number((await db.deleteFrom('webhook_notifications').where('id', 'in', hit).executeTakeFirst()).numDeletedRows);
    if (rows.length < size) return total;
    after = rows[rows.length - 1].id;
    await pause();
  }
}

async function removeIdempotencyKeys(db: Db, serverId: number, who: string, size: number): Promise<number> {
  let after = '';
  let total = 0;
  for (;;) {
    const rows = await db.selectFrom('idempotency_keys').select(['key', 'response']).where('server_id', '=', serverId).where('key', '>', after).orderBy('key').limit(size).execute();
    const hit = rows.filter((r) => names(r.response, who)).map((r) => r.key);
    if (hit.length) total += Number((await db.deleteFrom('idempotency_keys').where('server_id', '=', serverId).where('key', 'in', hit).executeTakeFirst()).numDeletedRows);
    if (rows.length < size) return total;
    after = rows[rows.length - 1].key;
    await pause();
  }
}

async function progress(db: Db, id: number, step: string, counts: RemovalCounts): Promise<void> {
  await db.updateTable('data_removals').set({ step, removed: JSON.stringify(counts) }).where('id', '=', id).execute();
}

/** Runs (or resumes) one removal; finishes its job and marks it Done in one transaction. */
export async function runDataRemoval(ctx: AppContext, job: Job, batchSize: number): Promise<void> {
  const { id } = JSON.parse(job.payload) as { id: number };
  const req = await ctx.db.selectFrom('data_removals').selectAll().where('id', '=', id).executeTakeFirst();
  if (!req || req.status === 'Done') return completeJob(ctx.db, job.id);
  const who = req.requested_for;
  // Counts carry over from an interrupted run: they say what was removed in all, not in this run.
  const counts = { messages: 0, bounces: 0, notifications: 0, idempotencyKeys: 0, ...fromJson<Partial<RemovalCounts>>(req.removed, {}) };
  const servers = await ctx.db.selectFrom('servers').select('id').where('account_id', '=', req.account_id).orderBy('id').execute();
  for (const { id: serverId } of servers) {
    const streams = (await ctx.db.selectFrom('message_streams').select('id').where('server_id', '=', serverId).execute()).map((s) => s.id);
    counts.messages += await removeMessages(ctx.db, serverId, streams, who, batchSize);
    await progress(ctx.db, id, `messages:${serverId}`, counts);
    counts.bounces += await removeBounces(ctx.db, serverId, who, batchSize);
    counts.notifications += await removeNotifications(ctx.db, serverId, who, batchSize);
    counts.idempotencyKeys += await removeIdempotencyKeys(ctx.db, serverId, who, batchSize);
    await progress(ctx.db, id, `server:${serverId}`, counts);
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('data_removals').set({ status: 'Done', step: 'done', removed: JSON.stringify(counts), completed_at: now }).where('id', '=', id).execute();
    if (fromFlag(req.notify_when_completed)) await enqueueJobs(trx, [{ queue: SYSTEM_MAIL_QUEUE, payload: completionMail(id, req.requested_for, req.requested_by), runAt: now }], now);
    await completeJob(trx, job.id);
  });
  ctx.logger.info({ dataRemoval: id, ...counts }, 'data removal done');
}

function completionMail(id: number, requestedFor: string, to: string) {
  const text = [
    `Data removal ${id} is complete.`,
    '',
    `Every message sent to or from ${requestedFor}, with its events, opens, clicks and bounce records, and every`,
    'webhook notification naming it, has been removed from mailroom. Suppressions of the address are kept, so',
    'that it is not mailed again.',
  ].join('\n');
  return { to, subject: `Data removal ${id} is complete`, text, html: `<pre>${text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</pre>` };
}
