// GET /messages: outbound message search, newest first. Every filter has an index on the messages table
// (0001: stream/time, tag/time, from/time, status/time) or on the recipients (0005: server, stream,
// lower(email), time); the recipient filter is answered from the recipients index and joined back by
// message id, so a rare recipient never walks the whole stream. On PostgreSQL, recipient and message filters
// together read the recipient's ids first instead (search-recipient-first.ts: the day partitions). Metadata
// filters are answered from message_metadata (migration 0039), whose index holds a key/value's messages in
// the search's order: the page is cut from it, or its ids are read first when other filters remain.
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { TextPlan } from '../../infra/db/sql-dialect.js';
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { limitedRead } from '../read-limit.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { parseFilterDate } from '../../infra/time.js';
import { countCapped } from './counting.js';
import { hasMetadataField, metadataHits } from './search-metadata.js';
import { recipientThenMessages } from './search-recipient-first.js';
import { ITEM_COLUMNS, messageItem, recipientsOf, type MessageRow } from './view.js';
import type { MessageSearch } from './search-query.js';

export type { Cursor, MessageSearch } from './search-query.js';

/** Row-value comparison, answered from the same (…, received_at, id) indexes as the ordering. */
function keyset(at: Expression<any>, id: Expression<any>, q: MessageSearch): RawBuilder<SqlBool>[] {
  const out: RawBuilder<SqlBool>[] = [];
  if (q.before) out.push(sql<SqlBool>`(${at}, ${id}) < (${q.before.at}, ${q.before.id})`);
  if (q.after) out.push(sql<SqlBool>`(${at}, ${id}) > (${q.after.at}, ${q.after.id})`);
  return out;
}

/**
 * Status filter. A message is Queued until every recipient is settled, then Sent (also when some bounced:
 * the bounce is in its events and on the recipient, as the hosted service shows it). So: queued and sent
 * select by the message's status; bounced selects messages with a bounced recipient; processed selects every
 * accepted message (each has its Processed event), i.e. it does not narrow the search.
 */
const STATUSES = ['queued', 'sent', 'bounced', 'processed'];

export function dateRange(fromdate?: string, todate?: string): { from: number | null; to: number | null } {
  const from = fromdate ? parseFilterDate(fromdate) : null;
  if (fromdate && from === null) throw new ApiError(ErrorCode.MessageQueryError, `fromdate is not a date: '${fromdate}'.`);
  const to = todate ? parseFilterDate(todate, true) : null;
  if (todate && to === null) throw new ApiError(ErrorCode.MessageQueryError, `todate is not a date: '${todate}'.`);
  return { from, to };
}

/** An address filter in stored form (normalized); an unusable address simply matches nothing. */
export function addressFilter(text: string): string {
  return normalizeEmail(text) ?? text.trim().toLowerCase();
}

// The builder mixes a derived table with messages; its typing is loosened here, the columns are checked by tests.
type Query = SelectQueryBuilder<any, any, any>;

interface Plan {
  stream: string;
  status: string | undefined;
  from: number | null;
  to: number | null;
  /** Filters answered by message_recipients (recipient, bounced). */
  recipientSide: boolean;
  /** Filters only the messages table can answer (metadata apart). */
  messageSide: boolean;
  /** metadata_<key>=<value> filters, answered by message_metadata. */
  metadata: Array<[string, string]>;
  /** The subject filter's text plan (SqlDialect.textPlan), looked up before the query is built. */
  subject?: TextPlan;
  /** The query is given its ids (`messages.id in (...)`), which drive it: no other index of messages is offered. */
  byIds?: boolean;
}

function plan(q: MessageSearch): Plan {
  const { from, to } = dateRange(q.fromdate, q.todate);
  const status = q.status?.toLowerCase();
  if (status !== undefined && !STATUSES.includes(status)) throw new ApiError(ErrorCode.MessageQueryError, `status must be one of ${STATUSES.join(', ')}.`);
  return {
    stream: q.messagestream || 'outbound',
    status,
    from,
    to,
    recipientSide: Boolean(q.recipient) || status === 'bounced',
    messageSide: Boolean(q.fromemail || q.tag || q.subject || status === 'queued' || status === 'sent'),
    metadata: Object.entries(q.metadata ?? {}),
  };
}

/** Distinct (message_id, received_at) of the recipients matching the recipient-side filters. */
function recipientHits(ctx: AppContext, serverId: number, q: MessageSearch, p: Plan): Query {
  let r = ctx.db
    .selectFrom('message_recipients')
    .select(['message_id', 'received_at'])
    .distinct()
    .where('server_id', '=', serverId)
    .where('stream_id', '=', p.stream);
  if (q.recipient) r = r.where(sql`lower(email)`, '=', addressFilter(q.recipient));
  // A literal, so that SQLite can prove the partial index recipients_bounced applies.
  if (p.status === 'bounced') r = r.where('status', '=', sql.lit('Bounced'));
  if (p.from !== null) r = r.where('received_at', '>=', p.from);
  if (p.to !== null) r = r.where('received_at', '<=', p.to);
  for (const k of keyset(sql.ref('received_at'), sql.ref('message_id'), q)) r = r.where(k);
  return r as unknown as Query;
}

/** metadataHits (search-metadata.ts) with the search's dates and keyset on its rows. */
function metadataHitsOf(ctx: AppContext, serverId: number, q: MessageSearch, p: Plan): Query {
  const at = sql.ref('mm.received_at');
  const bounds: RawBuilder<SqlBool>[] = keyset(at, sql.ref('mm.message_id'), q);
  if (p.from !== null) bounds.push(sql<SqlBool>`${at} >= ${p.from}`);
  if (p.to !== null) bounds.push(sql<SqlBool>`${at} <= ${p.to}`);
  return metadataHits(ctx, serverId, p.stream, p.metadata, bounds);
}

function filtered(ctx: AppContext, serverId: number, q: MessageSearch, p: Plan): Query {
  let qb: Query;
  if (p.recipientSide) {
    qb = ctx.db.selectFrom(recipientHits(ctx, serverId, q, p).as('hit')).innerJoin('messages', 'messages.id', 'hit.message_id') as unknown as Query;
  } else {
    qb = ctx.db.selectFrom('messages') as unknown as Query;
  }
  // A subject answered from the trigram index's few candidates, or the ids given, drive the query: the
  // server's indexes are then not offered to the planner, which would otherwise walk the stream in time order
  // (or a tag's messages) checking each against them.
  const driven = Boolean(p.subject?.narrowing) || p.byIds === true;
  const server = driven ? ctx.database.sql.unindexed(sql.ref('messages.server_id')) : sql.ref('messages.server_id');
  qb = qb.where(server, '=', serverId).where('messages.stream_id', '=', p.stream);
  if (p.from !== null) qb = qb.where('messages.received_at', '>=', p.from);
  if (p.to !== null) qb = qb.where('messages.received_at', '<=', p.to);
  for (const k of keyset(sql.ref('messages.received_at'), sql.ref('messages.id'), q)) qb = qb.where(k);
  if (q.fromemail) qb = qb.where('messages.from_email', '=', addressFilter(q.fromemail));
  if (q.tag) qb = qb.where(ctx.database.sql.tagEquals(sql.ref('messages.tag'), q.tag));
  if (p.status === 'queued') qb = qb.where('messages.status', '=', 'Queued');
  if (p.status === 'sent') qb = qb.where('messages.status', '=', 'Sent');
  // The trigram index of migration 0034 answers a subject of 3 characters or more (text-index.ts).
  if (q.subject) {
    const s = p.subject;
    qb = qb.where(s ? (s.narrowing ? sql<SqlBool>`(${s.narrowing} and ${s.check})` : s.check) : ctx.database.sql.messageContains(['subject'], q.subject, true));
  }
  // Only beside recipient filters, which drive: alone or with message filters, metadata drives (findPage).
  for (const [key, value] of p.metadata) qb = qb.where(hasMetadataField(serverId, key, value));
  return qb;
}

const ITEM_SELECTION = ITEM_COLUMNS.map((c) => `messages.${c}`);

/**
 * The page cut from `hits` ((message_id, received_at) read from an index in the search's order) and the
 * capped count of the hits; only the page's messages are read.
 */
async function pageOfHits(ctx: AppContext, serverId: number, q: MessageSearch, hits: Query): Promise<{ rows: MessageRow[]; total: number }> {
  const [page, total] = await Promise.all([
    hits.orderBy('received_at', 'desc').orderBy('message_id', 'desc').limit(q.count).offset(q.offset).execute() as Promise<Array<{ message_id: string }>>,
    q.withTotal === false ? -1 : countCapped(ctx, hits, true),
  ]);
  const ids = page.map((h) => h.message_id);
  if (ids.length === 0) return { rows: [], total };
  // By primary key only: with "and server_id = ?" beside it SQLite's planner (without ANALYZE statistics)
  // prefers walking the server's whole retention index. The hits were already filtered by server; the check
  // below keeps the isolation explicit all the same.
  const found = (await ctx.db.selectFrom('messages').select([...ITEM_COLUMNS]).where('id', 'in', ids).execute()) as MessageRow[];
  const byId = new Map(found.filter((m) => m.server_id === serverId).map((m) => [m.id, m]));
  return { rows: ids.map((id) => byId.get(id)).filter((m): m is MessageRow => m !== undefined), total };
}

/** One page of messages (newest first, id as tie-breaker) and the capped TotalCount. */
async function findPage(ctx: AppContext, serverId: number, q: MessageSearch): Promise<{ rows: MessageRow[]; total: number }> {
  const p = plan(q);
  if (q.subject) p.subject = await ctx.database.sql.textPlan(ctx.db, { table: 'messages', columns: ['subject'], indexed: true }, q.subject);
  if (p.recipientSide && !p.messageSide && p.metadata.length === 0) {
    // Only recipient-side filters: the page is cut from the recipients index itself, which holds
    // (received_at, message_id) in order, and only its messages are read. A recipient with a hundred thousand
    // messages costs no more than one with ten.
    return pageOfHits(ctx, serverId, q, recipientHits(ctx, serverId, q, p));
  }
  if (p.metadata.length > 0 && !p.recipientSide) {
    // Metadata alone is cut from message_metadata's index as the recipients' is; with message filters
    // beside it, its ids are read first in order and the filters checked on those (search-recipient-first.ts).
    if (!p.messageSide) return pageOfHits(ctx, serverId, q, metadataHitsOf(ctx, serverId, q, p));
    return recipientThenMessages(ctx, serverId, q, {
      hits: (before) => metadataHitsOf(ctx, serverId, { ...q, before }, p),
      messages: () => filtered(ctx, serverId, q, { ...p, metadata: [], byIds: true }),
    });
  }
  if (p.recipientSide && (p.messageSide || p.metadata.length > 0) && ctx.database.sql.filtersMessagesByIdList) {
    // Recipient and message filters together: the recipient's ids first (search-recipient-first.ts).
    return recipientThenMessages(ctx, serverId, q, {
      hits: (before) => recipientHits(ctx, serverId, { ...q, before }, p),
      messages: () => filtered(ctx, serverId, q, { ...p, recipientSide: false }),
    });
  }
  const qb = filtered(ctx, serverId, q, p);
  const ordered = (b: Query) => b.orderBy('messages.received_at', 'desc').orderBy('messages.id', 'desc');
  // Where an index scan reads the row of every entry it passes, the skipped offset rows included
  // (db/planner.ts), a deep page of a scattered filter (a tag) reads ten thousand table pages. Cutting the
  // page's ids with an index-only scan first and fetching just those rows avoids that.
  // The ids are read first and passed as values, not as a subquery: on the day partitions of PostgreSQL
  // (migration 0023) a list of ids is pruned to their partitions when planned, where a subquery's ids make
  // the planner hash-join a scan of every partition (1.3 s at 1,000,000 messages).
  const page = async (): Promise<MessageRow[]> => {
    if (!(ctx.database.sql.readsRowsSkippedByOffset && q.offset > 0)) return (await ordered(qb.select(ITEM_SELECTION)).limit(q.count).offset(q.offset).execute()) as MessageRow[];
    const ids = (await ordered(qb.select('messages.id')).limit(q.count).offset(q.offset).execute()).map((r) => (r as { id: string }).id);
    if (ids.length === 0) return [];
    return (await ordered(ctx.db.selectFrom('messages').select([...ITEM_COLUMNS]).where('id', 'in', ids) as unknown as Query).execute()) as MessageRow[];
  };
  const [rows, total] = await Promise.all([page(), q.withTotal === false ? -1 : countCapped(ctx, ordered(qb), false, true)]);
  return { rows, total };
}

export async function searchMessages(ctx: AppContext, serverId: number, q: MessageSearch) {
  const { rows, total, recipients } = await limitedRead(ctx, q.signal, async (ctx) => {
    const found = await findPage(ctx, serverId, q);
    return { ...found, recipients: await recipientsOf(ctx, found.rows.map((r) => r.id)) };
  });
  return { TotalCount: total, Messages: rows.map((r) => messageItem(r, recipients.get(r.id) ?? [])) };
}
