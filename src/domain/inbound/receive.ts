// Takes one message received for servers' inbound addresses in: a parser thread adds the authentication and
// spam headers, parses it and builds each server's payload (prepare-task.ts); here, on the main thread, each
// server's rules decide whether it is blocked (a rule, or a spam score above the server's
// InboundSpamThreshold), and it is stored with its 'inbound-hook' job in the same transaction.
// The listener answers 250 only after that commit (RFC 5321 4.2.5): a crash before it makes the sender
// retry, and the (server, digest) unique index stores a retried message once. Messages arriving together
// share one commit (InboundWriter), so the database's fsync is not the ceiling of the intake rate.
// When this process runs the worker too and its runner has a free hook slot, the job is stored leased to it
// and handed over after the commit (infra/jobs/enqueue-local.ts): no claim query.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import { createGroupCommit, type GroupCommit } from '../../infra/db/group-commit.js';
import type { Database } from '../../infra/db/schema.js';
import type { Insertable } from 'kysely';
import type { InboundMessagesTable } from '../../infra/db/tables/inbound.js';
import { enqueueLocal, type LocalJob } from '../../infra/jobs/enqueue-local.js';
import type { MessageSource } from '../../infra/spool.js';
import { TaskError, WorkerLost, taskModule } from '../../infra/threads/pool.js';
import { parsersBusy } from '../parsers-busy.js';
import type { Envelope } from './authenticate.js';
import { HANDOVER_PAYLOAD_CHARS, inboundHookJob, INBOUND_STATUS, type InboundHookHandover } from './hook-queue.js';
import type { InboundMailbox } from './inbound-address.js';
import { UnreadableMessage } from './parse.js';
import type { PrepareInput, PreparedInbound, ServerTarget } from './prepare-task.js';
import { blockingRule } from './rules.js';

interface Write {
  row: Insertable<InboundMessagesTable>;
  /** Set by the write: false when the same message was stored before (a retried delivery). */
  stored?: boolean;
  /**
   * Set by the write for a queued message: its hook job, stored leased to this process's runner where it
   * had a slot (infra/jobs/enqueue-local.ts). store() commits it once the write is durable, or aborts it.
   */
  local?: LocalJob<InboundHookHandover>;
}

/** Payload characters one insert statement carries at most (a message alone may exceed it). */
const STATEMENT_PAYLOAD_CHARS = 32 * 1024 * 1024;

function byPayloadSize(writes: Write[]): Write[][] {
  const out: Write[][] = [];
  let chunk: Write[] = [];
  let chars = 0;
  for (const w of writes) {
    const n = typeof w.row.payload === 'string' ? w.row.payload.length : 0;
    if (chunk.length > 0 && chars + n > STATEMENT_PAYLOAD_CHARS) {
      out.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(w);
    chars += n;
  }
  if (chunk.length > 0) out.push(chunk);
  return out;
}

/** The group commit of received messages (src/infra/db/group-commit.ts); built once per listener. */
export type InboundWriter = GroupCommit<Write>;

export function createInboundWriter(ctx: AppContext): InboundWriter {
  return createGroupCommit<Write>(ctx, {
    name: 'inbound messages',
    maxWeight: 256,
    commit: async (trx, writes) => {
      const now = ctx.clock.now();
      // A retried group (a conflict, or its messages written one by one) gives back what an attempt before held.
      for (const w of writes) {
        w.local?.abort();
        w.local = undefined;
      }
      // One statement for the group: the rows RETURNING gives back are those stored; a message stored
      // before (or earlier in this group) is skipped by the (server, digest) index, and not returned.
      // Statements hold at most STATEMENT_PAYLOAD_CHARS of payloads (PostgreSQL takes 1 GB per message).
      const stored = new Set<string>();
      for (const chunk of byPayloadSize(writes)) {
        const inserted = await trx
          .insertInto('inbound_messages')
          .values(chunk.map((w) => w.row))
          .onConflict((oc) => oc.columns(['server_id', 'digest']).doNothing())
          .returning('id')
          .execute();
        for (const r of inserted) stored.add(r.id);
      }
      for (const w of writes) w.stored = stored.has(w.row.id as string);
      const queued = writes.filter((w) => w.stored && w.row.status === INBOUND_STATUS.queued);
      const jobs = queued.map((w) => inboundHookJob(w.row.id as string, w.row.server_id as number, now));
      const locals = await enqueueLocal<InboundHookHandover>(trx, ctx.runner, jobs, now);
      queued.forEach((w, i) => (w.local = locals[i]));
    },
  });
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

/** The payloads one parser task builds at most, by its message's size (see receiveInbound). */
export const PAYLOAD_BUDGET_BYTES = 64 * 1024 * 1024;

const PREPARE_TASK = taskModule(import.meta.url, 'prepare-task');

/** Runs prepare-task.ts on a parser thread; its failures become the listener's answers. */
async function prepareOnThread(ctx: AppContext, input: PrepareInput, transfer: ArrayBuffer[]): Promise<PreparedInbound> {
  try {
    return await ctx.threads.run<PreparedInbound>(PREPARE_TASK, 'prepareInbound', input, transfer);
  } catch (err) {
    const busy = parsersBusy(err);
    if (busy) throw busy;
    if (err instanceof TaskError && err.errorName === 'UnreadableMessage') throw new UnreadableMessage(err.message);
    // Its heap limit or time budget: the same bytes would fail the same way on every retry (554).
    if (err instanceof WorkerLost) throw new UnreadableMessage(`The message could not be parsed within the parser's limits: ${err.message}`);
    throw err;
  }
}

/**
 * Stores the message ONCE per server however many of its addresses the envelope names (fifty
 * `+tag` addresses are one copy and one post, not fifty). OriginalRecipient and MailboxHash are those of the
 * server's first envelope recipient; ToFull and CcFull list the To and Cc headers, as the hosted service
 * does, and BccFull adds the server's other envelope recipients that the headers do not name (blind copies,
 * RFC 5322 3.6.3), so the application sees every address of its own the message was received at and none of
 * another server's. The payloads are built on the parser thread; the main thread holds their JSON strings.
 */
export async function receiveInbound(ctx: AppContext, writer: InboundWriter, message: MessageSource, env: Envelope, boxes: InboundMailbox[]): Promise<ReceiveOutcome[]> {
  const targets: Array<ServerTarget & { server: ServerInfo }> = [];
  for (const [serverId, own] of byServer(boxes)) {
    const server = await serverInfo(ctx.db, serverId);
    if (!server) continue;
    targets.push({ server, serverId, id: randomUUID(), rawEmail: server.raw_email_enabled === 1, own: own.map((b) => ({ address: b.address, mailboxHash: b.mailboxHash })), streamId: server.stream_id });
  }
  if (!targets.length) return [];
  // Each server's payload holds the message a few times over (attachments in base64, RawEmail): servers are
  // prepared in groups whose payloads fit PAYLOAD_BUDGET_BYTES, so a message to many servers' addresses
  // costs more parsing, not more memory. One group (the usual case) moves the bytes to the thread.
  const perTask = Math.max(1, Math.floor(PAYLOAD_BUDGET_BYTES / Math.max(1, 3 * message.bytes)));
  const groups: Array<typeof targets> = [];
  for (let i = 0; i < targets.length; i += perTask) groups.push(targets.slice(i, i + perTask));
  const base = { envelope: env, mta: ctx.config.inboundDomain, spamd: ctx.config.spamd };
  const run = async (group: typeof targets, last: boolean) => {
    const servers = group.map(({ server: _s, ...t }) => t);
    if (!last) return prepareOnThread(ctx, { ...base, ...message.copy(), servers }, []);
    const { raw, path } = message.handOff();
    return prepareOnThread(ctx, { ...base, raw, path, servers }, raw ? [raw.buffer as ArrayBuffer] : []);
  };
  const out: ReceiveOutcome[] = [];
  for (const [g, group] of groups.entries()) {
    const prepared = await run(group, g === groups.length - 1);
    await store(ctx, writer, prepared, group, out);
  }
  return out;
}

/** Writes one group's messages, and hands each queued one's hook job to the runner once it is durable. */
async function store(ctx: AppContext, writer: InboundWriter, prepared: PreparedInbound, targets: Array<ServerTarget & { server: ServerInfo }>, out: ReceiveOutcome[]): Promise<void> {
  if (prepared.warning) ctx.logger.warn({ err: prepared.warning }, 'inbound: authentication results could not be computed');
  const now = ctx.clock.now();
  for (const [i, t] of targets.entries()) {
    const { server, id } = t;
    const p = prepared.servers[i];
    const first = t.own[0];
    const rule = await blockingRule(ctx.db, server.id, prepared.from);
    const score = prepared.spamScore;
    // InboundSpamThreshold 0 means no threshold (the default of a new server).
    const spammy = score !== null && server.inbound_spam_threshold > 0 && score > server.inbound_spam_threshold;
    const blockedReason = rule
      ? `Blocked by the inbound rule '${rule}'.`
      : spammy
        ? `Spam score ${score} is above the server's InboundSpamThreshold of ${server.inbound_spam_threshold}.`
        : '';
    const status = blockedReason ? INBOUND_STATUS.blocked : server.inbound_hook_url ? INBOUND_STATUS.queued : INBOUND_STATUS.processed;
    const w: Write = {
      row: {
        id,
        server_id: server.id,
        stream_id: server.stream_id,
        // The message alone: the same message to another of the server's addresses (a sender splitting
        // recipients over transactions, RFC 5321 4.5.3.1.8) is the same message, stored once.
        digest: prepared.digest,
        from_email: p.fromEmail,
        from_name: p.fromName,
        recipients: p.recipients,
        original_recipient: first.address,
        subject: p.subject,
        mailbox_hash: first.mailboxHash,
        tag: p.tag,
        status,
        blocked_reason: blockedReason,
        spam_score: score,
        payload: p.payload,
        received_at: now,
        // Without an InboundHookUrl there is nobody to post to: the message is kept for the API only.
        processed_at: status === INBOUND_STATUS.processed ? now : null,
      },
    };
    try {
      await writer.submit(w);
    } catch (err) {
      w.local?.abort();
      throw err;
    }
    // Committed and synced: the job stored leased runs now, with what it would otherwise read back; one
    // enqueued without a slot waits for a claim (commit() wakes the runner for it).
    w.local?.commit(p.payload.length <= HANDOVER_PAYLOAD_CHARS ? { serverId: server.id, payload: p.payload } : undefined);
    out.push({ address: first.address, addresses: t.own.length, inboundId: id, status, duplicate: !w.stored });
  }
}
