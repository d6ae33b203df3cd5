// Takes one message received for servers' inbound addresses in: adds the authentication and spam headers
// (authenticate.ts), parses it, decides per server whether it is blocked (a rule, or a spam score above
// the server's InboundSpamThreshold), and stores it with its 'inbound-hook' job in the same transaction.
// The listener answers 250 only after that commit (RFC 5321 4.2.5): a crash before it makes the sender
// retry, and the (server, digest) unique index stores a retried message once. Messages arriving together
// share one commit (InboundWriter), so the database's fsync is not the ceiling of the intake rate.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import PostalMime from 'postal-mime';
import type { AppContext } from '../app-context.js';
import { CommitBatcher, inTransaction } from '../../infra/db/commit-batcher.js';
import type { Database } from '../../infra/db/schema.js';
import type { Insertable } from 'kysely';
import type { InboundMessagesTable } from '../../infra/db/tables/inbound.js';
import { cachedResolve, type ResolveFn } from '../../infra/dns/cache.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { examine, type Envelope } from './authenticate.js';
import { inboundHookJob, INBOUND_STATUS } from './hook-queue.js';
import type { InboundMailbox } from './inbound-address.js';
import { buildPayload, mailboxes } from './payload.js';
import { blockingRule } from './rules.js';

interface Write {
  row: Insertable<InboundMessagesTable>;
  /** Set by the write: false when the same message was stored before (a retried delivery). */
  stored?: boolean;
}

/** Group commit of received messages (src/infra/db/commit-batcher.ts) and the cached DNS answers of mail
 * authentication; built once per listener. */
export class InboundWriter extends CommitBatcher<Write> {
  readonly resolve: ResolveFn;
  constructor(ctx: AppContext) {
    super({
      logger: ctx.logger,
      name: 'inbound messages',
      maxWeight: 256,
      commit: inTransaction<Write>(ctx.db, async (trx, writes) => {
        const now = ctx.clock.now();
        for (const w of writes) {
          const r = await trx
            .insertInto('inbound_messages')
            .values(w.row)
            .onConflict((oc) => oc.columns(['server_id', 'digest']).doNothing())
            .executeTakeFirst();
          w.stored = Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
          if (w.stored && w.row.status === INBOUND_STATUS.queued) await enqueueJobs(trx, [inboundHookJob(w.row.id, w.row.server_id, now)], now);
        }
      }),
    });
    this.resolve = cachedResolve(ctx.dns, ctx.clock);
  }
}

export interface ReceiveOutcome {
  address: string;
  inboundId: string;
  status: string;
  duplicate: boolean;
}

interface ServerInfo {
  id: number;
  inbound_hook_url: string;
  raw_email_enabled: number;
  inbound_spam_threshold: number;
  stream_id: string;
}

async function serverInfo(db: Kysely<Database>, serverId: number): Promise<ServerInfo | undefined> {
  return db
    .selectFrom('servers as s')
    .leftJoin('message_streams as m', (j) => j.onRef('m.server_id', '=', 's.id').on('m.type', '=', 'Inbound'))
    .select(['s.id', 's.inbound_hook_url', 's.raw_email_enabled', 's.inbound_spam_threshold', 'm.id as stream_id'])
    .where('s.id', '=', serverId)
    .executeTakeFirst()
    .then((r) => (r ? { ...r, stream_id: r.stream_id ?? 'inbound' } : undefined));
}

export async function receiveInbound(ctx: AppContext, writer: InboundWriter, raw: Buffer, env: Envelope, boxes: InboundMailbox[]): Promise<ReceiveOutcome[]> {
  const examined = await examine(ctx, writer.resolve, raw, env);
  const full = Buffer.concat([Buffer.from(examined.headers, 'utf8'), raw]);
  const email = await PostalMime.parse(full, { attachmentEncoding: 'base64' });
  const now = ctx.clock.now();
  const from = mailboxes(email.from ? [email.from] : [])[0]?.address ?? env.mailFrom;
  const listed = [...mailboxes(email.to), ...mailboxes(email.cc)].map((m) => m.address.toLowerCase());

  const writes: Write[] = [];
  for (const box of boxes) {
    const server = await serverInfo(ctx.db, box.serverId);
    if (!server) continue;
    const id = randomUUID();
    const rule = await blockingRule(ctx.db, server.id, from);
    const score = examined.spam?.score ?? null;
    // InboundSpamThreshold 0 means no threshold (the default of a new server).
    const spammy = score !== null && server.inbound_spam_threshold > 0 && score > server.inbound_spam_threshold;
    const blockedReason = rule
      ? `Blocked by the inbound rule '${rule}'.`
      : spammy
        ? `Spam score ${score} is above the server's InboundSpamThreshold of ${server.inbound_spam_threshold}.`
        : '';
    const status = blockedReason ? INBOUND_STATUS.blocked : server.inbound_hook_url ? INBOUND_STATUS.queued : INBOUND_STATUS.processed;
    const payload = buildPayload({ id, email, raw: full, originalRecipient: box.address, mailboxHash: box.mailboxHash, streamId: server.stream_id, includeRaw: server.raw_email_enabled === 1 });
    writes.push({
      row: {
        id,
        server_id: server.id,
        stream_id: server.stream_id,
        digest: createHash('sha256').update(box.address.toLowerCase()).update('\n').update(raw).digest('hex'),
        from_email: payload.From.toLowerCase(),
        from_name: payload.FromName,
        recipients: [...new Set([...listed, box.address.toLowerCase()])].join(' '),
        original_recipient: box.address,
        subject: payload.Subject,
        mailbox_hash: box.mailboxHash,
        tag: payload.Tag,
        status,
        blocked_reason: blockedReason,
        spam_score: score,
        payload: JSON.stringify(payload),
        received_at: now,
        // Without an InboundHookUrl there is nobody to post to: the message is kept for the API only.
        processed_at: status === INBOUND_STATUS.processed ? now : null,
      },
    });
  }
  await Promise.all(writes.map((w) => writer.submit(w)));
  if (writes.some((w) => w.stored && w.row.status === INBOUND_STATUS.queued)) ctx.runner.wake();
  return writes.map((w) => ({ address: w.row.original_recipient, inboundId: w.row.id, status: w.row.status, duplicate: !w.stored }));
}
