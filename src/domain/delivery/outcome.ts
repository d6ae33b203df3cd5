// Records what happened to the recipients of delivery jobs, and finishes or reschedules the jobs, in ONE
// transaction: a crash before the commit leaves the jobs leased, so they are delivered again after the
// lease (at-least-once); a crash after it leaves nothing to redo. outcome-batcher.ts gathers the outcomes of
// jobs that finish at about the same time into one transaction; applyOutcomes writes them with one
// statement per kind of change rather than one per job.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { planByIndexes } from '../../infra/db/planner.js';
import { fromJson } from '../../infra/db/util.js';
import { recordBounce } from '../bounces/record-bounce.js';
import { recordEvents } from '../events/record.js';
import type { MessageEventInput } from '../event-types.js';
import { backoffDelay } from '../../infra/jobs/backoff.js';
import { completeJobs } from '../../infra/jobs/complete.js';
import { rescheduleJob } from '../../infra/jobs/reschedule.js';
import type { Job } from '../../infra/jobs/types.js';
import { storeMimes } from '../message-store/set-mime.js';
import { dropAttachmentContent, markMessagesSent } from '../message-store/settle-messages.js';
import { markRecipientsTransient, settleRecipientsSent, settleUnsettledRecipientsSent } from '../message-store/settle-recipients.js';
import { classifyReply } from './classify.js';
import { tlsDetails } from './mta-sts/tls-record.js';
import { smtpTranscript } from './smtp-transcript.js';
import { DELIVERY_SCHEDULE } from './options.js';
import type { SendResult } from './transport.js';

export interface OutcomeMessage {
  id: string;
  server_id: number;
  stream_id: string;
  tag: string | null;
  metadata: string;
  received_at: number;
}

export interface OutcomeRecipient {
  id: number;
  email: string;
}

/** One job's outcome, waiting to be written. */
export interface Outcome {
  job: Job;
  msg: OutcomeMessage;
  recipients: OutcomeRecipient[];
  results: SendResult[];
  /** Per recipient (same order): the tracked links in the copy sent to it, when link tracking was on. */
  trackedLinks?: number[];
  /** The as-sent MIME to keep, when the message has none yet. */
  mime: string | null;
}

/** The time a transiently failing recipient is given up (MAILROOM_DELIVERY_MAX_AGE_HOURS after acceptance). */
export function giveUpAt(ctx: AppContext, receivedAt: number): number {
  return receivedAt + ctx.config.deliveryMaxAgeHours * 3_600_000;
}

const chunks = <T>(xs: T[], n = 500): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

export async function applyOutcomes(trx: Kysely<Database>, ctx: AppContext, outcomes: Outcome[]): Promise<void> {
  const now = ctx.clock.now();
  const messageIds = [...new Set(outcomes.map((o) => o.msg.id))].sort();
  // Every statement below looks rows up by the keys of this batch (db/planner.ts: index plans whatever the
  // statistics say; with stale ones finishIfSettled would read all of message_recipients).
  await planByIndexes(trx);
  // Outcomes of one message's jobs (one per domain) are serialized on the message rows (locked in a fixed
  // order), so exactly one of them sees every recipient settled and finishes the message.
  await ctx.database.sql.lockRowsForUpdate(trx, 'messages', messageIds);
  // Recipients are looked up by id AND their message's id: on PostgreSQL message_recipients is partitioned by
  // message id (migration 0023), and only the message ids let the planner read just their partitions instead
  // of probing every day's index (docs/scaling.md, "Retention by partition"). On SQLite the extra condition
  // changes nothing (the rows are those of the ids).
  const messageOf = new Map<number, string>();
  for (const o of outcomes) for (const r of o.recipients) messageOf.set(r.id, o.msg.id);
  const byRecipients = (ids: number[]) => [...new Set(ids.map((id) => messageOf.get(id)!))];
  const open = new Set<number>();
  for (const ids of chunks([...messageOf.keys()])) {
    const rows = await trx.selectFrom('message_recipients').select('id').where('id', 'in', ids).where('message_id', 'in', byRecipients(ids)).where('settled_at', 'is', null).execute();
    for (const r of rows) open.add(r.id);
  }
  const delivered: number[] = [];
  const delayed: number[] = [];
  const fakeBounced: number[] = [];
  const completed: number[] = [];
  const events: MessageEventInput[] = [];
  const mimes: Array<[string, string]> = [];
  for (const o of outcomes) {
    const { msg } = o;
    const deadline = giveUpAt(ctx, msg.received_at);
    const metadata = fromJson<Record<string, string>>(msg.metadata, {});
    const base = { messageId: msg.id, serverId: msg.server_id, streamId: msg.stream_id, occurredAt: now, tag: msg.tag, metadata };
    let lastDelay: string | null = null;
    for (let i = 0; i < o.recipients.length; i++) {
      const r = o.recipients[i];
      const res = o.results[i];
      // Settled meanwhile (a DSN or complaint arrived through the inbound intake): keep that outcome.
      if (!open.has(r.id)) continue;
      // TLS is a mailroom addition to the hosted service's Details (its clients ignore unknown fields).
      const where = { DestinationServer: res.server, DestinationIP: res.ip, ...(res.tls ? { TLS: tlsDetails(res.tls) } : {}) };
      if (res.ok) {
        delivered.push(r.id);
        const links = o.trackedLinks?.[i] ?? 0;
        const tracking = links > 0 ? { tracking: { opens: false, links: true, trackedLinks: links } } : {};
        events.push({ ...base, type: 'Delivered', recipient: r.email, details: { DeliveryMessage: `smtp;${res.reply.text}`, ...where }, ...tracking });
        continue;
      }
      if (res.fakeBounce) {
        // The bounce-testing domain answers once: the bounce of the address's type, and the recipient settled
        // (Bounced by recordBounce when the type says the mail did not arrive, Sent otherwise).
        await recordBounce(trx, ctx, { messageId: msg.id, email: r.email, type: res.fakeBounce, details: res.reply.text, bouncedAt: now, recipientId: r.id });
        fakeBounced.push(r.id);
        continue;
      }
      const c = res.network ? null : classifyReply(res.reply);
      if (c?.kind === 'permanent') {
        const dump = smtpTranscript(res, r.email, new Date(now), ctx.config.returnPathDomain);
        await recordBounce(trx, ctx, { messageId: msg.id, email: r.email, type: c.bounceType, details: `smtp;${res.reply.text}`, bouncedAt: now, recipientId: r.id, dump });
      } else if (now >= deadline) {
        const hours = ctx.config.deliveryMaxAgeHours;
        const details = `Gave up after ${hours} hours of failed attempts; last answer from ${res.server}: ${res.reply.text}`;
        const dump = smtpTranscript(res, r.email, new Date(now), ctx.config.returnPathDomain, details);
        await recordBounce(trx, ctx, { messageId: msg.id, email: r.email, type: 'SoftBounce', details, bouncedAt: now, recipientId: r.id, dump });
      } else {
        delayed.push(r.id);
        lastDelay = res.reply.text;
        events.push({
          ...base,
          type: 'Transient',
          recipient: r.email,
          details: { Summary: 'Delivery delayed; it will be retried.', DeliveryMessage: `smtp;${res.reply.text}`, ...where },
        });
      }
    }
    if (o.mime !== null) mimes.push([msg.id, o.mime]);
    if (lastDelay !== null) {
      const next = Math.min(now + backoffDelay(o.job.attempts, DELIVERY_SCHEDULE), deadline);
      await rescheduleJob(trx, o.job.id, Math.max(next, now), lastDelay);
    } else {
      completed.push(o.job.id);
    }
  }
  await storeMimes(trx, mimes);
  for (const ids of chunks(delivered)) {
    await settleRecipientsSent(trx, ids, byRecipients(ids), now);
  }
  for (const ids of chunks(fakeBounced)) {
    await settleUnsettledRecipientsSent(trx, ids, byRecipients(ids), now);
  }
  for (const ids of chunks(delayed)) {
    await markRecipientsTransient(trx, ids, byRecipients(ids));
  }
  await recordEvents(trx, ctx, events);
  await completeJobs(trx, completed);
  await finishIfSettled(trx, messageIds);
}

/**
 * For each message with no recipient left unsettled: status Sent (also when some bounced; the bounces show in
 * its events, as the hosted service does) and the attachment content dropped
 * (docs/reference/api-conventions.md, "General rules" 6); names, types and sizes stay. Returns the finished
 * message ids.
 */
export async function finishIfSettled(trx: Kysely<Database>, messageIds: string[]): Promise<string[]> {
  const done: string[] = [];
  await planByIndexes(trx);
  for (const ids of chunks(messageIds)) {
    const open = new Set(
      (await trx.selectFrom('message_recipients').select('message_id').distinct().where('message_id', 'in', ids).where('settled_at', 'is', null).execute()).map(
        (r) => r.message_id,
      ),
    );
    const settled = ids.filter((id) => !open.has(id));
    if (settled.length === 0) continue;
    await markMessagesSent(trx, settled);
    // A Sandbox message (a fake bounce settles it) keeps its attachments' content for its retention (accepting/store.ts).
    const sandbox = new Set((await trx.selectFrom('messages').select('id').where('id', 'in', settled).where('sandbox', '=', 1).execute()).map((r) => r.id));
    const live = sandbox.size ? settled.filter((id) => !sandbox.has(id)) : settled;
    if (live.length) await dropAttachmentContent(trx, live);
    done.push(...settled);
  }
  return done;
}
