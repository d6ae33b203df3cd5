// Takes one message received for servers' inbound addresses in: adds the authentication and spam headers
// (authenticate.ts), parses it, decides per server whether it is blocked (a rule, or a spam score above
// the server's InboundSpamThreshold), and stores it with its 'inbound-hook' job in the same transaction.
// The listener answers 250 only after that commit (RFC 5321 4.2.5): a crash before it makes the sender
// retry, and the (server, digest) unique index stores a retried message once. Messages arriving together
// share one commit (InboundWriter), so the database's fsync is not the ceiling of the intake rate.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
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
import { parseInbound } from './parse.js';
import { withoutForgedHeaders } from './own-headers.js';
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
  /** The server's first envelope recipient (OriginalRecipient). */
  address: string;
  /** How many of the server's addresses the envelope named (one stored message for all). */
  addresses: number;
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

/** The envelope recipients of one message, grouped by server in the order they were given. */
function byServer(boxes: InboundMailbox[]): Map<number, InboundMailbox[]> {
  const out = new Map<number, InboundMailbox[]>();
  for (const b of boxes) {
    const list = out.get(b.serverId);
    if (list) {
      if (!list.some((x) => x.address.toLowerCase() === b.address.toLowerCase())) list.push(b);
    } else out.set(b.serverId, [b]);
  }
  return out;
}

/**
 * Stores the message ONCE per server however many of its addresses the envelope names (issue 27: fifty
 * `+tag` addresses made fifty copies and fifty posts). OriginalRecipient and MailboxHash are those of the
 * server's first envelope recipient; ToFull and CcFull list the To and Cc headers, as the hosted service
 * does, and BccFull adds the server's other envelope recipients that the headers do not name (blind copies,
 * RFC 5322 3.6.3), so the application sees every address of its own the message was received at and none of
 * another server's. Servers are written one after the other, so only one payload is in memory at a time.
 */
export async function receiveInbound(ctx: AppContext, writer: InboundWriter, raw: Buffer, env: Envelope, boxes: InboundMailbox[]): Promise<ReceiveOutcome[]> {
  const cleaned = withoutForgedHeaders(raw, { authservId: ctx.config.inboundDomain, spamScored: ctx.config.spamd !== null });
  // Parsed before any DNS or spamd work: a message that cannot be read is refused at once (554, listener).
  const email = await parseInbound(cleaned);
  const examined = await examine(ctx, writer.resolve, raw, env);
  email.headers = [...(await parseInbound(Buffer.from(`${examined.headers}\r\n`, 'utf8'))).headers, ...email.headers];
  let rawEmail: string | null = null;
  const rawText = () => (rawEmail ??= Buffer.concat([Buffer.from(examined.headers, 'utf8'), cleaned]).toString('utf8'));
  const now = ctx.clock.now();
  const from = mailboxes(email.from ? [email.from] : [])[0]?.address ?? env.mailFrom;
  const listed = [...mailboxes(email.to), ...mailboxes(email.cc)].map((m) => m.address.toLowerCase());
  const digest = createHash('sha256').update(raw).digest('hex');

  const out: ReceiveOutcome[] = [];
  let queued = false;
  for (const [serverId, own] of byServer(boxes)) {
    const server = await serverInfo(ctx.db, serverId);
    if (!server) continue;
    const first = own[0];
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
    const envelopeOnly = own.map((b) => b.address).filter((a) => !listed.includes(a.toLowerCase()));
    const payload = buildPayload({
      id,
      email,
      rawEmail: server.raw_email_enabled === 1 ? rawText() : null,
      originalRecipient: first.address,
      mailboxHash: first.mailboxHash,
      envelopeBcc: envelopeOnly,
      streamId: server.stream_id,
    });
    const w: Write = {
      row: {
        id,
        server_id: server.id,
        stream_id: server.stream_id,
        // The message alone: the same message to another of the server's addresses (a sender splitting
        // recipients over transactions, RFC 5321 4.5.3.1.8) is the same message, stored once.
        digest,
        from_email: payload.From.toLowerCase(),
        from_name: payload.FromName,
        recipients: [...new Set([...listed, ...own.map((b) => b.address.toLowerCase())])].join(' '),
        original_recipient: first.address,
        subject: payload.Subject,
        mailbox_hash: first.mailboxHash,
        tag: payload.Tag,
        status,
        blocked_reason: blockedReason,
        spam_score: score,
        payload: JSON.stringify(payload),
        received_at: now,
        // Without an InboundHookUrl there is nobody to post to: the message is kept for the API only.
        processed_at: status === INBOUND_STATUS.processed ? now : null,
      },
    };
    await writer.submit(w);
    if (w.stored && status === INBOUND_STATUS.queued) queued = true;
    out.push({ address: first.address, addresses: own.length, inboundId: id, status, duplicate: !w.stored });
  }
  if (queued) ctx.runner.wake();
  return out;
}
