// Loads what a delivery job needs (the message, its recipients, attachments, stream, signing key and
// envelope domain) for all the jobs a runner starts together, with one query per table instead of seven
// queries per job: the runner starts up to 64 jobs from one claim, and on PostgreSQL each query is a round
// trip and a socket write (the largest cost per message in bench/deliver before this). Requests made in the
// same turn of the event loop share one load.
import type { AppContext } from '../app-context.js';
import type { DkimKey as SigningKey } from '../../infra/dkim/sign.js';
import { withIndexPlans } from '../../infra/db/planner.js';

export interface LoadedMessage {
  msg: {
    id: string;
    server_id: number;
    stream_id: string;
    account_id: number;
    delivery_type: string;
    sandbox: number;
    from_email: string;
    from_raw: string;
    reply_to: string | null;
    subject: string;
    html_body: string | null;
    text_body: string | null;
    headers: string;
    metadata: string;
    tag: string | null;
    track_opens: number;
    track_links: string;
    received_at: number;
    mime: string | null;
    /** The server's IP pool (ip-pools/). */
    server_ip_pool: string | null;
  };
  recipients: Array<{ id: number; kind: string; email: string; name: string; settled_at: number | null }>;
  attachments: Array<{ name: string; content_type: string; content_id: string | null; content: string | null }>;
  stream: { type: string; unsubscribe_handling: string | null; ip_pool: string | null } | undefined;
  key: SigningKey | null;
  envDomain: string;
  /** The From domain's verified tracking host as https://host, or null for the public URL. */
  trackingBase: string | null;
}

const chunks = <T>(xs: T[], n = 500): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/**
 * The sender lookups a delivery needs (src/domain/sender-signatures/signing.ts), handed in by the
 * composition root: the senders area sends its confirmation mail through delivery, so delivery does not
 * import it back.
 */
export interface SenderLookups {
  signingKey(accountId: number, fromEmail: string): Promise<SigningKey | null>;
  envelopeDomain(accountId: number, fromEmail: string): Promise<string>;
  /** The From domain's verified tracking host as https://host, or null (domains/tracking-domain.ts). */
  trackingBase(accountId: number, fromEmail: string): Promise<string | null>;
}

async function loadAll(ctx: AppContext, senderLookups: SenderLookups, ids: string[]): Promise<Map<string, LoadedMessage>> {
  const { db } = ctx;
  const msgs = [];
  for (const part of chunks(ids)) {
    msgs.push(
      ...(await db
        .selectFrom('messages')
        .innerJoin('servers', 'servers.id', 'messages.server_id')
        .select([
          'messages.id', 'messages.server_id', 'messages.stream_id', 'messages.from_email', 'messages.from_raw', 'messages.reply_to',
          'messages.subject', 'messages.html_body', 'messages.text_body', 'messages.headers', 'messages.metadata', 'messages.tag',
          'messages.track_opens', 'messages.track_links', 'messages.received_at', 'messages.mime', 'messages.sandbox',
          'messages.attachments', 'messages.bulk_id', 'servers.account_id', 'servers.delivery_type', 'servers.ip_pool as server_ip_pool',
        ])
        .where('messages.id', 'in', part)
        .execute()),
    );
  }
  const found = msgs.map((m) => m.id);
  const withFiles = msgs.filter((m) => m.attachments !== '[]' && m.bulk_id === null).map((m) => m.id);
  // A bulk request's messages share its attachments, stored once (src/domain/bulk).
  const bulkIds = [...new Set(msgs.filter((m) => m.attachments !== '[]' && m.bulk_id !== null).map((m) => m.bulk_id!))];
  const serverIds = [...new Set(msgs.map((m) => m.server_id))];
  // One signing key and envelope domain per (account, From address): a batch is usually one sender.
  const senders = new Map<string, Promise<[SigningKey | null, string, string | null]>>();
  for (const m of msgs) {
    const k = `${m.account_id}\n${m.from_email}`;
    if (senders.has(k)) continue;
    const p = Promise.all([
      senderLookups.signingKey(m.account_id, m.from_email),
      senderLookups.envelopeDomain(m.account_id, m.from_email),
      senderLookups.trackingBase(m.account_id, m.from_email),
    ]);
    p.catch(() => {}); // awaited below; this keeps a failure from being reported as unhandled meanwhile
    senders.set(k, p);
  }
  const [recipients, attachments, bulkFiles, streams] = await Promise.all([
    // By message_id through recipients_message whatever the statistics say (db/planner.ts): with stale ones
    // this would read all of message_recipients for each message.
    Promise.all(
      chunks(found).map((part) =>
        withIndexPlans(db, (d) => d.selectFrom('message_recipients').select(['id', 'message_id', 'kind', 'email', 'name', 'settled_at']).where('message_id', 'in', part).orderBy('id').execute()),
      ),
    ),
    Promise.all(
      chunks(withFiles).map((part) =>
        withIndexPlans(db, (d) =>
          d.selectFrom('message_attachments').select(['message_id', 'name', 'content_type', 'content_id', 'content']).where('message_id', 'in', part).orderBy('message_id').orderBy('position').execute(),
        ),
      ),
    ),
    bulkIds.length
      ? db.selectFrom('bulk_attachments').select(['bulk_id as message_id', 'name', 'content_type', 'content_id', 'content']).where('bulk_id', 'in', bulkIds).orderBy('bulk_id').orderBy('position').execute()
      : [],
    serverIds.length ? db.selectFrom('message_streams').select(['server_id', 'id', 'type', 'unsubscribe_handling', 'ip_pool']).where('server_id', 'in', serverIds).execute() : [],
  ]);
  const group = <T extends { message_id: string }>(rows: T[]) => {
    const m = new Map<string, T[]>();
    for (const r of rows) m.set(r.message_id, [...(m.get(r.message_id) ?? []), r]);
    return m;
  };
  const rcpts = group(recipients.flat());
  const files = group(attachments.flat());
  const sharedFiles = group(bulkFiles);
  const out = new Map<string, LoadedMessage>();
  for (const m of msgs) {
    const [key, envDomain, trackingBase] = await senders.get(`${m.account_id}\n${m.from_email}`)!;
    out.set(m.id, {
      msg: m,
      recipients: rcpts.get(m.id) ?? [],
      attachments: (m.bulk_id !== null ? sharedFiles.get(m.bulk_id) : files.get(m.id)) ?? [],
      stream: streams.find((s) => s.server_id === m.server_id && s.id === m.stream_id),
      key,
      envDomain,
      trackingBase,
    });
  }
  return out;
}

/**
 * Gathers the loads asked for in one turn of the event loop into one loadAll. One per worker, built by the
 * composition root (src/worker.ts).
 */
export class DeliveryLoader {
  private waiting: { ids: string[]; done: Promise<Map<string, LoadedMessage>> } | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly senders: SenderLookups,
  ) {}

  /** The message and what delivering it needs; null when the message is gone (retention, server deleted). */
  async load(messageId: string): Promise<LoadedMessage | null> {
    let w = this.waiting;
    if (!w) {
      const ids: string[] = [];
      const done = new Promise<Map<string, LoadedMessage>>((resolve, reject) => {
        setImmediate(() => {
          this.waiting = null;
          loadAll(this.ctx, this.senders, [...new Set(ids)]).then(resolve, reject);
        });
      });
      w = { ids, done };
      this.waiting = w;
    }
    w.ids.push(messageId);
    return (await w.done).get(messageId) ?? null;
  }
}
