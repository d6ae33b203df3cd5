// GET /messages with recipient-side filters (recipient, status=bounced) AND message-side ones (tag, sender,
// subject, metadata, queued/sent), on PostgreSQL. Joined in one statement, the day partitions of messages
// (migration 0023, docs/scaling.md "Retention by partition") make the planner hash-join every partition's rows
// for the tag, many times the cost of the same join unpartitioned (docs/scaling.md). So the recipient's message
// ids are read first, newest first, from the recipients index (as the recipient-only search does), and the
// message filters are applied to those ids passed as values, which prunes messages to their partitions when the
// statement is planned. SQLite has no partitions and keeps the join (a nested loop from the recipients index),
// which messages/search.ts builds.
import type { SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../app-context.js';
import { SEARCH_WINDOW } from './counting.js';
import type { Cursor, MessageSearch } from './search-query.js';
import { ITEM_COLUMNS, type MessageRow } from './view.js';

type Query = SelectQueryBuilder<any, any, any>;

/** Recipient hits read per round trip: most recipients have fewer; a busy one is walked in growing batches. */
const FIRST_BATCH = 500;
const MAX_BATCH = 4000;

export interface RecipientFirstQueries {
  /** Distinct (message_id, received_at) of the recipient-side filters, older than `before` when given. */
  hits(before: Cursor | undefined): Query;
  /** messages with the message-side filters (server, stream, dates, keyset included). */
  messages(): Query;
}

/**
 * One page and the capped TotalCount, the same rows and count as the join: batches of recipient hits are
 * filtered until enough matches are found for the TotalCount window (or for the page when no total is
 * wanted), or the recipient's hits run out.
 */
export async function recipientThenMessages(ctx: AppContext, serverId: number, q: MessageSearch, queries: RecipientFirstQueries): Promise<{ rows: MessageRow[]; total: number }> {
  const want = q.withTotal === false ? q.offset + q.count : Math.max(SEARCH_WINDOW, q.offset + q.count);
  const matched: string[] = [];
  let before = q.before;
  let batch = FIRST_BATCH;
  for (;;) {
    // The walk's cursor stands for the caller's `before`: it is always older than that one.
    const hits = (await queries.hits(before).orderBy('received_at', 'desc').orderBy('message_id', 'desc').limit(batch).execute()) as Array<{ message_id: string; received_at: number | string }>;
    if (hits.length === 0) break;
    const ids = hits.map((h) => h.message_id);
    const rows = (await queries.messages().select('messages.id').where('messages.id', 'in', ids).execute()) as Array<{ id: string }>;
    const found = new Set(rows.map((r) => r.id));
    // In the hits' order, which is the search's: recipients carry their message's received_at.
    for (const id of ids) if (found.has(id)) matched.push(id);
    if (matched.length >= want || hits.length < batch) break;
    const last = hits[hits.length - 1]!;
    before = { at: Number(last.received_at), id: last.message_id };
    batch = Math.min(batch * 2, MAX_BATCH);
  }
  const total = q.withTotal === false ? -1 : Math.min(matched.length, SEARCH_WINDOW);
  const pageIds = matched.slice(q.offset, q.offset + q.count);
  if (pageIds.length === 0) return { rows: [], total };
  const fetched = (await ctx.db.selectFrom('messages').select([...ITEM_COLUMNS]).where('id', 'in', pageIds).execute()) as MessageRow[];
  // The ids were found under the server's filter already; the check keeps the isolation explicit.
  const byId = new Map(fetched.filter((m) => m.server_id === serverId).map((m) => [m.id, m]));
  return { rows: pageIds.map((id) => byId.get(id)).filter((m): m is MessageRow => m !== undefined), total };
}
