// What the console shows of bulk requests: a server's requests newest first, each with its
// progress in messages (compiled, handed off, delivered, bounced), and one request's messages in pages.
// Every query is bounded: the list is a keyset page of 20 requests; a request's progress reads its
// counters, its queued messages through the partial index messages_bulk (bulk_id, status) and its bounced
// recipients through recipients_bounced, each count capped at the request's size; its messages are read 50 at
// a time through messages_bulk_order (bulk_id, id).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { BulkStatus } from './status.js';
import { STORING } from './store.js';

export const REQUESTS_PER_PAGE = 20;
export const MESSAGES_PER_PAGE = 50;

export interface BulkProgress {
  total: number;
  /** Entries compiled into a message. */
  compiled: number;
  /** Entries left out: every recipient inactive (skipped) or the entry did not compile (failed). */
  skipped: number;
  failed: number;
  /** Messages handed off (no longer queued): delivered or bounced. */
  sent: number;
  /** Messages handed off with no bounced recipient. */
  delivered: number;
  /** Messages with a bounced recipient (also a bounce that came back after delivery). */
  bounced: number;
}

export interface BulkRequestView {
  id: string;
  subject: string;
  status: BulkStatus;
  reason: string | null;
  submittedAt: number;
  completedAt: number | null;
  streamId: string;
  tag: string | null;
  from: string;
  progress: BulkProgress;
}

type Row = {
  id: string;
  server_id: number;
  stream_id: string;
  status: string;
  reason: string | null;
  subject: string;
  content: string;
  total_messages: number;
  compiled: number;
  skipped: number;
  failed: number;
  submitted_at: number;
  completed_at: number | null;
};

const COLUMNS = ['id', 'server_id', 'stream_id', 'status', 'reason', 'subject', 'content', 'total_messages', 'compiled', 'skipped', 'failed', 'submitted_at', 'completed_at'] as const;

async function progressOf(db: Kysely<Database>, b: Row): Promise<BulkProgress> {
  const cap = Math.max(1, Number(b.compiled));
  const base = { total: Number(b.total_messages), compiled: Number(b.compiled), skipped: Number(b.skipped), failed: Number(b.failed) };
  if (base.compiled === 0) return { ...base, sent: 0, delivered: 0, bounced: 0 };
  const queued =
    b.status === 'Completed'
      ? 0
      : Number(
          (
            await sql<{ n: number }>`select count(*) as n from (select 1 from messages where bulk_id = ${b.id} and status = 'Queued' limit ${cap}) q`.execute(db)
          ).rows[0]?.n ?? 0,
        );
  // Bounced recipients of the request's stream received while it was compiled (the partial index), kept
  // when their message belongs to the request: one count per message, however many of its recipients bounced.
  // A finished request's window ends with it, so an old request does not read the stream's later bounces.
  const until = b.completed_at === null ? Number.MAX_SAFE_INTEGER : Number(b.completed_at);
  const bounced = Number(
    (
      await sql<{ n: number }>`select count(distinct r.message_id) as n from (
        select message_id from message_recipients
        where server_id = ${b.server_id} and stream_id = ${b.stream_id} and received_at >= ${b.submitted_at} and received_at <= ${until} and status = 'Bounced'
          and exists (select 1 from messages m where m.id = message_recipients.message_id and m.bulk_id = ${b.id})
        limit ${cap}) r`.execute(db)
    ).rows[0]?.n ?? 0,
  );
  const sent = Math.max(0, base.compiled - queued);
  return { ...base, sent, bounced, delivered: Math.max(0, sent - bounced) };
}

function view(b: Row, progress: BulkProgress): BulkRequestView {
  const content = JSON.parse(b.content) as { From?: string; Tag?: string | null };
  return {
    id: b.id,
    subject: b.subject,
    status: b.status as BulkStatus,
    reason: b.reason,
    submittedAt: Number(b.submitted_at),
    completedAt: b.completed_at === null ? null : Number(b.completed_at),
    streamId: b.stream_id,
    tag: content.Tag ?? null,
    from: content.From ?? '',
    progress,
  };
}

/** A server's bulk requests, newest first, REQUESTS_PER_PAGE at a time (keyset: before = "submittedAt.id"). */
export async function listBulkRequests(db: Kysely<Database>, serverId: number, before?: { at: number; id: string }): Promise<BulkRequestView[]> {
  let q = db.selectFrom('bulk_requests').select(COLUMNS).where('server_id', '=', serverId).where('status', '!=', STORING);
  if (before) q = q.where((eb) => eb.or([eb('submitted_at', '<', before.at), eb.and([eb('submitted_at', '=', before.at), eb('id', '<', before.id)])]));
  const rows = (await q.orderBy('submitted_at', 'desc').orderBy('id', 'desc').limit(REQUESTS_PER_PAGE).execute()) as Row[];
  const out: BulkRequestView[] = [];
  for (const r of rows) out.push(view(r, await progressOf(db, r)));
  return out;
}

export async function getBulkRequest(db: Kysely<Database>, serverId: number, id: string): Promise<BulkRequestView | null> {
  const r = (await db.selectFrom('bulk_requests').select(COLUMNS).where('id', '=', id).where('server_id', '=', serverId).where('status', '!=', STORING).executeTakeFirst()) as Row | undefined;
  return r ? view(r, await progressOf(db, r)) : null;
}

export interface BulkMessageItem {
  id: string;
  subject: string;
  status: string;
  receivedAt: number;
  recipients: string[];
}

/** One page of a request's messages in id order (time order: ids are time-ordered), after the id given. */
export async function listBulkMessages(db: Kysely<Database>, serverId: number, bulkId: string, after?: string): Promise<BulkMessageItem[]> {
  let q = db.selectFrom('messages').select(['id', 'subject', 'status', 'received_at']).where('bulk_id', '=', bulkId).where('server_id', '=', serverId);
  if (after) q = q.where('id', '>', after);
  const rows = await q.orderBy('bulk_id').orderBy('id').limit(MESSAGES_PER_PAGE).execute();
  if (rows.length === 0) return [];
  const recipients = await db
    .selectFrom('message_recipients')
    .select(['message_id', 'email', 'kind', 'status'])
    .where('message_id', 'in', rows.map((r) => r.id))
    .orderBy('id')
    .execute();
  const by = new Map<string, string[]>();
  for (const r of recipients) {
    const text = `${r.kind === 'To' ? '' : `${r.kind}: `}${r.email}${r.status === 'Bounced' ? ' (bounced)' : ''}`;
    by.set(r.message_id, [...(by.get(r.message_id) ?? []), text]);
  }
  return rows.map((m) => ({ id: m.id, subject: m.subject, status: m.status, receivedAt: Number(m.received_at), recipients: by.get(m.id) ?? [] }));
}
