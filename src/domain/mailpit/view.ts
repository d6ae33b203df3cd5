// mailroom's messages in Mailpit's shapes (its storage.MessageSummary and storage.Message, swagger.json):
// the Mailpit ID is the MessageID; From, To, Cc, Bcc and ReplyTo are {Name, Address}; the Postmark Tag (or
// the tags set through the API, tags.ts) are the Tags; attachments carry their checksums, computed when the
// message was accepted (accepting/checksums.ts), never their content. The raw source is the MIME as sent
// when the message went out (messages.mime), else composed from what is stored by delivery's own composer
// (a Sandbox message is never composed otherwise), attachment content left out in both.
import type { Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { MessagesTable } from '../../infra/db/tables/messages.js';
import { fromJson } from '../../infra/db/util.js';
import { parseAddressList, parseSingleMailbox } from '../../infra/mime/address.js';
import type { AttachmentChecksums } from '../accepting/checksums.js';
import { composeMime } from '../delivery/compose.js';
import { composeInputOf, messageIdHeader } from '../delivery/compose-input.js';
import { recipientsOf } from '../messages/view.js';
import type { MailpitServer } from './filters.js';
import { readFlags } from './read-state.js';
import { attachmentBytes, sizesOf } from './size.js';
import { snippet } from './snippet.js';
import { tagsOf } from './tags.js';

export interface Address {
  Name: string;
  Address: string;
}

interface StoredAttachment {
  Name: string;
  ContentType: string;
  ContentID: string | null;
  ContentLength: number;
  Checksums?: AttachmentChecksums;
}

export interface LoadedMessage {
  row: Selectable<MessagesTable>;
  recipients: Array<{ kind: string; email: string; name: string }>;
  read: boolean;
  tags: string[];
  /** The source ('' when loaded for a list, which reads no source). */
  raw: string;
  attachments: StoredAttachment[];
  size: number;
}

function mailbox(raw: string): Address {
  try {
    const m = parseSingleMailbox(raw);
    return { Name: m.name, Address: m.address };
  } catch {
    return { Name: raw, Address: '' };
  }
}

function mailboxes(raw: string | null): Address[] {
  if (!raw) return [];
  try {
    return parseAddressList(raw).map((m) => ({ Name: m.name, Address: m.address }));
  } catch {
    return [{ Name: raw, Address: '' }];
  }
}

const of = (m: LoadedMessage, kind: string): Address[] => m.recipients.filter((r) => r.kind === kind).map((r) => ({ Name: r.name, Address: r.email }));

/** The message source as /raw serves it. */
function rawOf(ctx: AppContext, row: Selectable<MessagesTable>, recipients: LoadedMessage['recipients'], attachments: StoredAttachment[]): string {
  if (row.mime) return row.mime;
  const files = attachments.map((a) => ({ name: a.Name, contentType: a.ContentType, contentId: a.ContentID, content: null }));
  return composeMime(composeInputOf(ctx, row, recipients, files), false).toString('utf8');
}

/**
 * These messages of the server, in the order given (missing and other servers' ids left out). `list`: for a
 * list page, which shows no source: none is composed, and the sizes come from size.ts.
 */
export async function loadMessages(ctx: AppContext, server: MailpitServer, ids: string[], o: { list?: boolean } = {}): Promise<LoadedMessage[]> {
  if (ids.length === 0) return [];
  // By primary key only (see messages/search.ts): the server is checked on the rows.
  const [rows, recipients, state] = await Promise.all([ctx.db.selectFrom('messages').selectAll().where('id', 'in', ids).execute(), recipientsOf(ctx, ids), readFlags(ctx, ids)]);
  const byId = new Map(rows.filter((r) => r.server_id === server.id && (!server.sandbox || r.sandbox === 1)).map((r) => [r.id, r]));
  const out: LoadedMessage[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) continue;
    const rcpts = recipients.get(id) ?? [];
    const attachments = fromJson<StoredAttachment[]>(row.attachments, []);
    const s = state.get(id);
    const raw = o.list ? '' : rawOf(ctx, row, rcpts, attachments);
    const size = o.list ? 0 : Buffer.byteLength(raw) + attachmentBytes({ attachments });
    out.push({ row, recipients: rcpts, read: s?.read ?? false, tags: tagsOf(row.tag, s?.tags), raw, attachments, size });
  }
  if (o.list) (await sizesOf(ctx, out)).forEach((n, i) => (out[i]!.size = n));
  return out;
}

const headerMessageId = (ctx: AppContext, m: LoadedMessage) => {
  const custom = fromJson<Array<{ Name: string; Value: string }>>(m.row.headers, []).find((h) => h.Name.trim().toLowerCase() === 'message-id');
  return (custom?.Value.trim() || messageIdHeader(ctx, m.row.id)).replace(/^<|>$/g, '');
};
const isInline = (m: LoadedMessage, a: StoredAttachment) => a.ContentID !== null && a.ContentID !== '' && m.row.html_body !== null;

/** An entry of GET /api/v1/messages and /search (Mailpit's MessageSummary). */
export function listItem(ctx: AppContext, m: LoadedMessage) {
  return {
    ID: m.row.id,
    MessageID: headerMessageId(ctx, m),
    Read: m.read,
    From: mailbox(m.row.from_raw),
    To: of(m, 'To'),
    Cc: of(m, 'Cc'),
    Bcc: of(m, 'Bcc'),
    ReplyTo: mailboxes(m.row.reply_to),
    Subject: m.row.subject,
    Created: new Date(m.row.received_at).toISOString(),
    Username: '',
    Tags: m.tags,
    Size: m.size,
    Attachments: m.attachments.filter((a) => !isInline(m, a)).length,
    Snippet: snippet(m.row.text_body, m.row.html_body),
  };
}

/** The header block of a source, unfolded, keyed as Go's textproto canonicalizes names (Mailpit's headers). */
export function headerMap(raw: string): Record<string, string[]> {
  const end = raw.indexOf('\r\n\r\n');
  const block = end < 0 ? raw : raw.slice(0, end);
  const out: Record<string, string[]> = {};
  const lines: string[] = [];
  for (const line of block.split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length) lines[lines.length - 1] += ' ' + line.trim();
    else lines.push(line);
  }
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line
      .slice(0, colon)
      .trim()
      .toLowerCase()
      .replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
    (out[name] ??= []).push(line.slice(colon + 1).trim());
  }
  return out;
}

function listUnsubscribe(raw: string) {
  const h = headerMap(raw);
  const header = h['List-Unsubscribe']?.[0] ?? '';
  const links: string[] = [];
  let at = 0;
  while (at < header.length) {
    const open = header.indexOf('<', at);
    if (open < 0) break;
    const close = header.indexOf('>', open);
    if (close < 0) break;
    links.push(header.slice(open + 1, close).trim());
    at = close + 1;
  }
  return { Header: header, Links: links, Errors: '', HeaderPost: h['List-Unsubscribe-Post']?.[0] ?? '' };
}

/** GET /api/v1/message/{ID} (Mailpit's Message). */
export function messageSummary(ctx: AppContext, m: LoadedMessage) {
  const from = mailbox(m.row.from_raw);
  const part = (a: StoredAttachment, i: number) => ({
    PartID: String(i + 2),
    FileName: a.Name,
    ContentType: a.ContentType,
    ContentID: a.ContentID ?? '',
    Size: a.ContentLength,
    Checksums: a.Checksums ?? { MD5: '', SHA1: '', SHA256: '' },
  });
  const parts = m.attachments.map((a, i) => ({ a, p: part(a, i) }));
  return {
    ID: m.row.id,
    MessageID: headerMessageId(ctx, m),
    From: from,
    To: of(m, 'To'),
    Cc: of(m, 'Cc'),
    Bcc: of(m, 'Bcc'),
    ReplyTo: mailboxes(m.row.reply_to),
    ReturnPath: from.Address,
    Subject: m.row.subject,
    ListUnsubscribe: listUnsubscribe(m.raw),
    Date: new Date(m.row.received_at).toISOString(),
    Tags: m.tags,
    Username: '',
    Text: m.row.text_body ?? '',
    HTML: m.row.html_body ?? '',
    Size: m.size,
    Inline: parts.filter((x) => isInline(m, x.a)).map((x) => x.p),
    Attachments: parts.filter((x) => !isInline(m, x.a)).map((x) => x.p),
  };
}
