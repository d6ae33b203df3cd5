// The message record as the API shows it (docs/reference/messages.md): the contract's fields (Tag, MessageID,
// MessageStream, Recipient, ReceivedAt, From, Subject, Status) plus the hosted form's (Recipients, To, Cc, Bcc,
// TrackOpens, TrackLinks, Attachments by name, Metadata).
import type { Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { MessagesTable } from '../../infra/db/tables/messages.js';
import { fromFlag, fromJson } from '../../infra/db/util.js';
import { withIndexPlans } from '../../infra/db/planner.js';
import { iso } from '../../infra/time.js';

export type MessageRow = Omit<Selectable<MessagesTable>, 'html_body' | 'text_body' | 'mime' | 'bulk_id' | 'size'>;

/** Columns of a search item: everything but the bodies and the MIME source. */
export const ITEM_COLUMNS = [
  'id',
  'server_id',
  'stream_id',
  'from_email',
  'from_raw',
  'subject',
  'tag',
  'reply_to',
  'headers',
  'metadata',
  'track_opens',
  'track_links',
  'attachments',
  'status',
  'sandbox',
  'received_at',
] as const;

interface RecipientRow {
  message_id: string;
  kind: string;
  email: string;
  name: string;
}

/** Recipients of the given messages, in the order they were given, keyed by message. */
export async function recipientsOf(ctx: AppContext, messageIds: string[]): Promise<Map<string, RecipientRow[]>> {
  const out = new Map<string, RecipientRow[]>();
  if (messageIds.length === 0) return out;
  // By message_id through recipients_message whatever the statistics say (db/planner.ts).
  const rows = await withIndexPlans(ctx.db, (db) => db.selectFrom('message_recipients').select(['message_id', 'kind', 'email', 'name']).where('message_id', 'in', messageIds).orderBy('id').execute());
  for (const r of rows) {
    const list = out.get(r.message_id) ?? [];
    list.push(r);
    out.set(r.message_id, list);
  }
  return out;
}

export function messageItem(m: MessageRow, recipients: RecipientRow[]) {
  const of = (kind: string) => recipients.filter((r) => r.kind === kind).map((r) => ({ Email: r.email, Name: r.name }));
  const to = of('To');
  const attachments = fromJson<Array<{ Name?: string }>>(m.attachments, []);
  return {
    Tag: m.tag ?? '',
    MessageID: m.id,
    MessageStream: m.stream_id,
    To: to,
    Cc: of('Cc'),
    Bcc: of('Bcc'),
    Recipients: recipients.map((r) => r.email),
    Recipient: recipients[0]?.email ?? '',
    ReceivedAt: iso(m.received_at),
    From: m.from_raw,
    Subject: m.subject,
    Attachments: attachments.map((a) => a.Name ?? ''),
    Status: m.status,
    TrackOpens: fromFlag(m.track_opens),
    TrackLinks: m.track_links,
    Metadata: fromJson<Record<string, string>>(m.metadata, {}),
    Sandboxed: fromFlag(m.sandbox),
  };
}
