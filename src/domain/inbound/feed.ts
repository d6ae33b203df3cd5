// The console's Inbound page: a server's inbound messages newest first, with the API's filters, in keyset
// pages (received_at, id) over the index inbound_messages_server_time, so the thousandth page costs what the
// first does, and the messages after the newest one shown (new arrivals, fetched by the page's script).
// A substring filter (recipient, from, subject: no index serves "contains") reads at most SCAN_WINDOW
// messages per page and says where it stopped, so a search matching nothing costs the same as one page
// instead of a read of every message the server ever received.
import type { AppContext } from '../app-context.js';
import { iso } from '../../infra/time.js';
import { filteredInbound, type InboundFilterFields } from './query.js';

export interface FeedCursor {
  at: number;
  /** '' for "everything received before `at`" (where a bounded search stopped). */
  id: string;
}

export const SCAN_WINDOW = 20_000;

export interface FeedPage {
  items: FeedItem[];
  /** Set when a substring search stopped at its window before finding a page: continue before this. */
  searchedTo?: FeedCursor;
}

export interface FeedRequest extends InboundFilterFields {
  limit: number;
  /** Older than this (the next page). */
  before?: FeedCursor;
  /** Newer than this (live arrivals), oldest of them last as everywhere on the page. */
  after?: FeedCursor;
}

/** A row of the list, from the indexed columns only: the payload (bodies, attachments) is not read. */
export interface FeedItem {
  MessageID: string;
  From: string;
  FromName: string;
  OriginalRecipient: string;
  Subject: string;
  MailboxHash: string;
  Tag: string;
  Status: string;
  BlockedReason: string;
  ReceivedAt: string;
  cursor: string;
}

/** The received_at of the SCAN_WINDOW-th newest message before the cursor (index only), if there are more. */
async function windowStart(ctx: AppContext, serverId: number, before: FeedCursor | undefined): Promise<number | null> {
  let q = ctx.db.selectFrom('inbound_messages').select('received_at').where('server_id', '=', serverId);
  if (before) q = q.where('received_at', before.id === '' ? '<' : '<=', before.at);
  const row = await q.orderBy('received_at', 'desc').offset(SCAN_WINDOW - 1).limit(1).executeTakeFirst();
  return row ? Number(row.received_at) : null;
}

export async function inboundFeed(ctx: AppContext, serverId: number, r: FeedRequest): Promise<FeedPage> {
  let q = filteredInbound(ctx, serverId, r);
  // The bound on received_at alone first, so that both databases seek the index to it; the OR only
  // settles ties at that instant.
  if (r.before) {
    const b = r.before;
    q = b.id === '' ? q.where('received_at', '<', b.at) : q.where('received_at', '<=', b.at).where((eb) => eb.or([eb('received_at', '<', b.at), eb('id', '<', b.id)]));
  }
  if (r.after) {
    const a = r.after;
    q = q.where('received_at', '>=', a.at).where((eb) => eb.or([eb('received_at', '>', a.at), eb('id', '>', a.id)]));
  }
  const bounded = !r.after && Boolean(r.recipient || r.fromemail || r.subject);
  const from = bounded ? await windowStart(ctx, serverId, r.before) : null;
  if (from !== null) q = q.where('received_at', '>=', from);
  // Arrivals are taken oldest first, so that a burst larger than one fetch is picked up by the next one.
  const dir = r.after ? 'asc' : 'desc';
  const rows = await q
    .select(['id', 'from_email', 'from_name', 'original_recipient', 'subject', 'mailbox_hash', 'tag', 'status', 'blocked_reason', 'received_at'])
    .orderBy('received_at', dir)
    .orderBy('id', dir)
    .limit(r.limit)
    .execute();
  if (r.after) rows.reverse();
  const items = rows.map((m) => ({
    MessageID: m.id,
    From: m.from_email,
    FromName: m.from_name,
    OriginalRecipient: m.original_recipient,
    Subject: m.subject,
    MailboxHash: m.mailbox_hash,
    Tag: m.tag,
    Status: m.status,
    BlockedReason: m.blocked_reason,
    ReceivedAt: iso(Number(m.received_at)) ?? '',
    cursor: `${Number(m.received_at)}.${m.id}`,
  }));
  return from !== null && items.length < r.limit ? { items, searchedTo: { at: from, id: '' } } : { items };
}
