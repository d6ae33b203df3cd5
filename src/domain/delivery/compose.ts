// The message on the wire, composed in memory (mail/mime-tree.ts): multipart/alternative for text+HTML,
// multipart/related for inline cid: parts, multipart/mixed for attachments, the same structure nodemailer's
// MailComposer produced; quoted-printable or base64 so that no line exceeds 78 characters and the body is
// 7-bit clean (RFC 5322 2.1.1, RFC 2045 6). Then DKIM-signed (dkim/sign.ts, RFC 6376 relaxed/relaxed).
import { dkimSignAligned } from '../../infra/dkim/sign.js';
import { parseAddressList, parseSingleMailbox } from '../../infra/mime/address.js';
import { addressField, foldField, formatMailbox, textField } from '../../infra/mime/mime-encode.js';
import { attachmentPart, serialize, textPart, wrap, type Entity } from '../../infra/mime/mime-tree.js';
import type { DkimKey as SigningKey } from '../../infra/dkim/sign.js';

export interface ComposeAttachment {
  name: string;
  contentType: string;
  /** Without `cid:`; set for inline parts referenced from the HTML. */
  contentId: string | null;
  /** Base64; null once dropped (then an empty part is composed, as for the stored copy). */
  content: string | null;
}

export interface ComposeInput {
  /** The Message-ID header value, with angle brackets. */
  messageIdHeader: string;
  date: Date;
  fromRaw: string;
  replyTo: string | null;
  subject: string;
  to: Array<{ name: string; email: string }>;
  cc: Array<{ name: string; email: string }>;
  html: string | null;
  text: string | null;
  /** The message's custom Headers. */
  headers: Array<{ Name: string; Value: string }>;
  /** Headers added by the service for this copy (List-Unsubscribe, ...). */
  extraHeaders?: Array<{ key: string; value: string }>;
  attachments: ComposeAttachment[];
}

// Headers that belong to the composer or to the transport: a custom value would break the structure of the
// message, reveal Bcc, or forge what receiving servers add themselves.
const RESERVED = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'reply-to',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'dkim-signature',
  'return-path',
  'received',
]);

function fromMailbox(raw: string): string {
  try {
    const m = parseSingleMailbox(raw);
    return formatMailbox(m.name, m.ascii);
  } catch {
    return raw.replace(/[\r\n]+/g, ' ');
  }
}

function replyToMailboxes(raw: string): string[] {
  try {
    return parseAddressList(raw).map((m) => formatMailbox(m.name, m.ascii));
  } catch {
    return [raw.replace(/[\r\n]+/g, ' ')];
  }
}

/** RFC 5322 3.3 date-time, e.g. "Sat, 21 Nov 2026 08:14:59 +0000". */
const rfc5322Date = (d: Date): string => d.toUTCString().replace(/GMT$/, '+0000');

function body(input: ComposeInput, withContent: boolean): Entity {
  const files = input.attachments.map((a) => {
    // Inline only when the HTML refers to it: the PHP client gives every attachment a ContentID (its file
    // name), and an unreferenced inline part is hidden by most mail programs.
    const inline = a.contentId !== null && input.html !== null && input.html.includes(`cid:${a.contentId}`);
    const part = attachmentPart({
      name: a.name,
      contentType: a.contentType,
      contentId: inline ? a.contentId : null,
      content: withContent && a.content ? Buffer.from(a.content, 'base64') : Buffer.alloc(0),
    });
    return { part, inline };
  });
  const html = input.html === null ? null : wrap('related', [textPart('html', input.html), ...files.filter((f) => f.inline).map((f) => f.part)]);
  const text = input.text ?? (input.html === null ? '' : null);
  const alternatives = [...(text === null ? [] : [textPart('plain', text)]), ...(html ? [html] : [])];
  return wrap('mixed', [wrap('alternative', alternatives), ...files.filter((f) => !f.inline).map((f) => f.part)]);
}

/**
 * Builds the MIME source. `withContent: false` leaves attachment content out (the stored copy;
 * docs/reference/api-conventions.md, "General rules" 6).
 */
export function composeMime(input: ComposeInput, withContent = true): Buffer {
  let messageId = input.messageIdHeader;
  const custom: string[] = [];
  for (const h of input.headers) {
    const k = h.Name.trim().toLowerCase();
    if (k === 'message-id') {
      // An application that sets its own Message-ID (threading with its own ids) keeps it.
      const v = h.Value.trim().replace(/[\r\n]+/g, '');
      if (v) messageId = v.startsWith('<') ? v : `<${v}>`;
      continue;
    }
    if (RESERVED.has(k)) continue;
    custom.push(textField(h.Name.trim(), h.Value));
  }
  for (const h of input.extraHeaders ?? []) custom.push(textField(h.key, h.value));
  const top = [foldField('From', fromMailbox(input.fromRaw))];
  if (input.to.length) top.push(addressField('To', input.to.map((r) => formatMailbox(r.name, r.email))));
  if (input.cc.length) top.push(addressField('Cc', input.cc.map((r) => formatMailbox(r.name, r.email))));
  if (input.replyTo) top.push(addressField('Reply-To', replyToMailboxes(input.replyTo)));
  top.push(textField('Subject', input.subject), foldField('Message-ID', messageId), `Date: ${rfc5322Date(input.date)}`, ...custom);
  return serialize(top, body(input, withContent));
}

/**
 * Prepends the DKIM-Signature of the From domain's key, and a second one by that key for the envelope domain
 * when that is a subdomain of it (a custom Return-Path; dkim/sign.ts dkimSignAligned).
 */
export function dkimSign(raw: Buffer, key: SigningKey, envelopeDomain: string | null = null): Buffer {
  return dkimSignAligned(raw, key, envelopeDomain);
}
