// The 'deliver' job: every unsettled recipient of one message at one destination domain. Loads the message,
// composes and signs it, hands it to the next hop with one SMTP transaction per recipient (each with its own
// VERP envelope sender, so a bounce names its recipient; the transactions share one pooled connection), and
// records the outcome (outcome.ts).
import type { AppContext } from '../app-context.js';
import { completeJob } from '../../infra/jobs/complete.js';
import type { Job } from '../../infra/jobs/types.js';
import { emailDomain } from '../../infra/mime/normalize.js';
import { localReply } from '../../infra/smtp-client/replies.js';
import { encodeVerp } from '../../infra/mime/verp.js';
import type { DkimKey as SigningKey } from '../../infra/dkim/sign.js';
import { unsubscribeHeaders } from '../streams/unsubscribe-headers.js';
import { applyTracking } from '../tracking/rewrite.js';
import { composeMime, dkimSign, type ComposeInput } from './compose.js';
import type { DeliverPayload } from './jobs.js';
import type { DeliveryLoader } from './load.js';
import { logAttempts } from './attempt-log.js';
import { isBounceTestingDomain } from './bounce-testing.js';
import { fakeBounceResults } from './fake-bounce.js';
import { sourcePool } from './ip-pools/resolve.js';
import type { OutcomeBatcher } from './outcome-batcher.js';
import { finishIfSettled } from './outcome.js';
import type { SmtpPool } from './smtp-pool.js';
import type { Pacer } from './pacing/pacer.js';
import { paceDelivery } from './pacing/admit.js';
import { deliverToDomain, type Envelope, type SendResult } from './transport.js';
import { composeInputOf } from './compose-input.js';
import { listHeaders } from './list-headers.js';

async function finishWithoutSending(ctx: AppContext, job: Job, messageId: string | null): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await completeJob(trx, job.id);
    if (messageId) await finishIfSettled(trx, [messageId]);
  });
}

/** What the delivery worker shares between its jobs; built by the composition root (src/worker.ts). */
export interface DeliveryParts {
  pool: SmtpPool;
  loader: DeliveryLoader;
  outcomes: OutcomeBatcher;
  /** Per-destination pacing (pacing/); absent: none. */
  pacer?: Pacer;
}

/**
 * `release` (from the runner) frees the job's destination-domain slot once the SMTP work is done (the
 * connection is back in the pool). The job keeps its place in MAILROOM_DELIVERY_CONCURRENCY and its lease
 * until its outcome commits: from the remote server's 250 to that commit the message is delivered but
 * unrecorded, and a worker killed then has it sent again by another one. So the outcome is handed to the
 * batcher at once, before anything else is done, and a worker never holds more such jobs than its
 * concurrency (README, "Crash safety").
 */
export async function runDeliveryJob(ctx: AppContext, parts: DeliveryParts, job: Job, release: () => void = () => {}): Promise<void> {
  const { pool } = parts;
  const p = JSON.parse(job.payload) as DeliverPayload;
  const loaded = await parts.loader.load(p.messageId);
  // Deleted (retention, server removed) or never to be delivered (Sandbox server, test token).
  if (!loaded) return finishWithoutSending(ctx, job, null);
  const { msg, recipients: all, attachments, stream, key, envDomain, trackingBase } = loaded;
  const pending = all.filter((r) => r.settled_at === null && emailDomain(r.email) === p.domain);
  // The bounce-testing domain, on Live and Sandbox servers: its bounces are the outcome, before any DNS or SMTP.
  const fake = isBounceTestingDomain(ctx.config, p.domain);
  if (!fake && (msg.sandbox === 1 || msg.delivery_type === 'Sandbox')) return finishWithoutSending(ctx, job, null);
  if (pending.length === 0) return finishWithoutSending(ctx, job, msg.id);
  if (fake) {
    release();
    return parts.outcomes.submit({ job, msg, recipients: pending, results: fakeBounceResults(pending, msg.headers, p.domain), mime: null });
  }
  // A destination that throttled, or is at its connection or rate limit: the job waits, not attempted.
  const paced = await paceDelivery(ctx, parts.pacer, job, p.domain, pending.length);
  if (!paced) return;

  const files = attachments.map((a) => ({ name: a.name, contentType: a.content_type, contentId: a.content_id, content: a.content }));
  const input = composeInputOf(ctx, msg, all, files, envDomain);
  const broadcast = stream?.type === 'Broadcasts';
  const tracked = msg.track_opens === 1 || msg.track_links !== 'None';
  const lists = broadcast ? listHeaders({ streamId: msg.stream_id, serverId: msg.server_id, accountId: msg.account_id, fromEmail: msg.from_email, headers: input.headers, serviceDomain: ctx.config.returnPathDomain }) : [];

  const items: Envelope[] = [];
  const trackedLinks: number[] = [];
  let first: { input: ComposeInput; signed: Buffer; unsigned: Buffer } | null = null;
  let results: SendResult[];
  const t0 = performance.now();
  try {
    const build = (copy: ComposeInput) => {
      const unsigned = composeMime(copy);
      const signed = key ? dkimSign(unsigned, key, envDomain) : unsigned;
      first ??= { input: copy, signed, unsigned };
      return signed;
    };
    // Without tracking or per-recipient headers every recipient gets the same bytes: composed and signed once.
    const shared = tracked || broadcast ? null : build(input);
    for (const r of pending) {
      let raw = shared;
      let links = 0;
      if (!raw) {
        const copy = { ...input };
        if (tracked) {
          const t = applyTracking(ctx, {
            messageId: msg.id,
            recipient: r.email,
            html: msg.html_body,
            text: msg.text_body,
            trackOpens: msg.track_opens === 1,
            trackLinks: msg.track_links,
            baseUrl: trackingBase,
            onTrackedLink: () => links++,
          });
          copy.html = t.html;
          copy.text = t.text;
        }
        if (broadcast) {
          copy.extraHeaders = [...lists, ...unsubscribeHeaders(ctx, { serverId: msg.server_id, streamId: msg.stream_id, streamType: 'Broadcasts', messageId: msg.id, recipient: r.email, unsubscribeHandling: stream?.unsubscribe_handling, baseUrl: trackingBase })];
        }
        raw = build(copy);
      }
      trackedLinks.push(links);
      items.push({ from: encodeVerp(ctx.secrets, { messageId: msg.id, recipientId: r.id }, envDomain), to: r.email, raw });
    }
    results = await deliverToDomain(ctx, pool, p.domain, items, sourcePool(ctx, stream?.ip_pool, msg.server_ip_pool));
  } catch (err) {
    // A message that cannot be composed (bad stored key, ...) is treated like a delay: retried on the
    // schedule, given up as a SoftBounce at the maximum age, and visible as Transient events meanwhile.
    ctx.logger.error({ err, messageId: msg.id }, 'delivery: composing the message failed');
    const reply = localReply(451, '4.3.0', `Local error composing the message: ${err instanceof Error ? err.message : String(err)}`);
    results = pending.map(() => ({ ok: false, reply, server: 'localhost', ip: '', network: true, stage: 'local' }));
  }
  release();
  const took = performance.now() - t0;
  const mime = msg.mime === null && first ? storedCopy(first, key) : null;
  const recorded = parts.outcomes.submit({ job, msg, recipients: pending, results, mime, trackedLinks });
  // Pacing learns from the replies (it may read and write its state) while the outcome commits, not before:
  // the delivered-but-unrecorded window stays as short as the commit. It logs its own failures.
  const learned = paced.done(results);
  logAttempts(ctx, job, msg.id, p.domain, pending.map((r) => r.id), results, took);
  await Promise.all([recorded, learned]);
}

/**
 * The as-sent source kept for GET /messages/outbound/{id}/dump: attachment content left out
 * (docs/reference/api-conventions.md, "General rules" 6).
 */
function storedCopy(first: { input: ComposeInput; signed: Buffer; unsigned: Buffer }, key: SigningKey | null): string {
  if (first.input.attachments.every((a) => !a.content)) return first.signed.toString('utf8');
  const signature = key ? first.signed.subarray(0, first.signed.length - first.unsigned.length) : Buffer.alloc(0);
  return Buffer.concat([signature, composeMime(first.input, false)]).toString('utf8');
}
