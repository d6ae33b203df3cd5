// The console's Inbound page: a server's inbound messages newest first, with the API's filters, in keyset
// pages (received_at, id) over the index inbound_messages_server_time, so the thousandth page costs what the
// first does, and the messages after the newest one shown (new arrivals, fetched by the page's script).
import type { AppContext } from '../app-context.js';
import { iso } from '../../infra/time.js';
import { filteredInbound, type InboundFilterFields } from './query.js';

export interface FeedCursor {
  at: number;
  id: string;
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

export async function inboundFeed(ctx: AppContext, serverId: number, r: FeedRequest): Promise<FeedItem[]> {
  let q = filteredInbound(ctx, serverId, r);
  if (r.before) {
    const b = r.before;
    q = q.where((eb) => eb.or([eb('received_at', '<', b.at), eb.and([eb('received_at', '=', b.at), eb('id', '<', b.id)])]));
  }
  if (r.after) {
    const a = r.after;
    q = q.where((eb) => eb.or([eb('received_at', '>', a.at), eb.and([eb('received_at', '=', a.at), eb('id', '>', a.id)])]));
  }
  // Arrivals are taken oldest first, so that a burst larger than one fetch is picked up by the next one.
  const dir = r.after ? 'asc' : 'desc';
  const rows = await q
    .select(['id', 'from_email', 'from_name', 'original_recipient', 'subject', 'mailbox_hash', 'tag', 'status', 'blocked_reason', 'received_at'])
    .orderBy('received_at', dir)
    .orderBy('id', dir)
    .limit(r.limit)
    .execute();
  if (r.after) rows.reverse();
  return rows.map((m) => ({
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
}
