// A message submitted over SMTP (RFC 6409) becomes the same outgoing message as a POST /email: the MIME is
// parsed with postal-mime, its headers become the API's fields, and the X-PM-* headers the API's options
// (x-pm-headers.ts). The result is the JSON form that prepareMessage validates, so every rule of the API
// applies unchanged; the envelope is applied afterwards (applyEnvelope).
import { isComposite, parseContentType } from '../../infra/mime/content-type.js';
import PostalMime, { type Address, type Attachment, type Email } from '../../infra/mime/postal-mime.js';
import { ApiError, ErrorCode } from '../errors.js';
import { BOUNCE_TYPE_HEADER } from '../delivery/bounce-testing.js';
import { readPmHeaders } from './x-pm-headers.js';

/** Headers that become API fields, that mailroom writes itself, or that only relays add (headers.ts refuses
 * them in Headers); a submission client writes them as a matter of course, so they are dropped here. */
const STRUCTURAL = new Set([
  'from', 'to', 'cc', 'bcc', 'subject', 'reply-to', 'sender', 'date', 'message-id', 'return-path', 'received',
  'dkim-signature', 'mime-version',
]);
const STRUCTURAL_PREFIXES = ['content-', 'arc-', 'x-pm-'];

/** X-PM-Bounce-Type stays a header: delivery reads it for the bounce-testing domain (delivery/bounce-testing.ts). */
const isStructural = (key: string) => key !== BOUNCE_TYPE_HEADER && (STRUCTURAL.has(key) || STRUCTURAL_PREFIXES.some((p) => key.startsWith(p)));

export interface HeaderMailbox {
  name: string;
  address: string;
}

export interface ParsedSubmission {
  /** The message in the JSON form of POST /email, without its recipients (envelope.ts adds them). */
  input: Record<string, unknown>;
  /** The address headers: who the message names; the envelope decides who receives it. */
  to: HeaderMailbox[];
  cc: HeaderMailbox[];
  /** X-PM-KeepID: the client's Message-ID, kept on the delivered message; null: mailroom assigns one. */
  keepMessageId: string | null;
}

/** RFC 5322 3.6: fields a message has at most once. postal-mime would keep the first and drop the rest
 * silently, so a message with two From would be delivered as from one of them. */
const AT_MOST_ONCE = new Set(['from', 'sender', 'reply-to', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'in-reply-to', 'references']);

function refuseRepeatedFields(headers: Email['headers']): void {
  const seen = new Set<string>();
  for (const h of headers) {
    if (!AT_MOST_ONCE.has(h.key)) continue;
    if (seen.has(h.key)) {
      const name = h.originalKey || h.key;
      throw new ApiError(ErrorCode.InvalidEmailRequest, `The message has more than one '${name}' header; RFC 5322 3.6 allows at most one.`);
    }
    seen.add(h.key);
  }
}

/** Mailboxes of an address header, groups flattened (RFC 5322 3.4). */
function mailboxes(list: Address[] | Address | undefined): HeaderMailbox[] {
  if (!list) return [];
  const out: HeaderMailbox[] = [];
  for (const a of Array.isArray(list) ? list : [list]) {
    if (a.group) out.push(...a.group.filter((m) => m.address));
    else if (a.address) out.push({ name: a.name, address: a.address });
  }
  return out;
}

/** RFC 5322 3.2.4: a display name always quoted (postal-mime gives it decoded), so that any text survives the
 * API's address parser. */
export const mailboxText = (m: HeaderMailbox): string => (m.name.trim() ? `"${m.name.trim().replace(/(["\\])/g, '\\$1')}" <${m.address}>` : m.address);
const joinList = (list: HeaderMailbox[]) => list.map(mailboxText).join(', ');

function attachmentInput(a: Attachment, i: number): Record<string, unknown> {
  const content = typeof a.content === 'string' ? a.content : Buffer.from(a.content as ArrayBuffer).toString('base64');
  // A part without a file name (an inline image, a forwarded message) still needs a Name in the API form.
  const name = a.filename?.trim() || `part-${i + 1}${a.mimeType === 'message/rfc822' ? '.eml' : ''}`;
  const cid = a.contentId?.replace(/^<(.*)>$/, '$1').trim();
  // A forwarded message (message/rfc822) or any composite part arrives here as opaque bytes, and mailroom sends
  // attachments base64-encoded, which RFC 2045 6.4 forbids for composite types: it travels as a file.
  const parsed = parseContentType(a.mimeType);
  const type = typeof parsed !== 'string' && isComposite(parsed) ? 'application/octet-stream' : a.mimeType;
  return { Name: name, Content: content, ContentType: type, ContentID: cid && a.disposition !== 'attachment' ? `cid:${cid}` : null };
}

export async function parseSubmission(raw: Buffer): Promise<ParsedSubmission> {
  const email: Email = await PostalMime.parse(raw, { attachmentEncoding: 'base64' });
  refuseRepeatedFields(email.headers);
  const pm = readPmHeaders(email.headers);
  const headers = email.headers
    .filter((h) => !isStructural(h.key))
    .map((h) => ({ Name: h.originalKey || h.key, Value: h.value.trim() }));
  const from = mailboxes(email.from);
  const input: Record<string, unknown> = {
    // More than one From mailbox is refused by the API's rule (exactly one).
    From: joinList(from),
    Subject: email.subject ?? '',
    HtmlBody: email.html ?? null,
    TextBody: email.text ?? null,
    ReplyTo: email.replyTo ? joinList(mailboxes(email.replyTo)) : null,
    Headers: headers,
    Attachments: email.attachments.map(attachmentInput),
    ...pm.fields,
  };
  const keep = pm.keepId && email.messageId ? email.messageId.trim() : null;
  return { input, to: mailboxes(email.to), cc: mailboxes(email.cc), keepMessageId: keep || null };
}
