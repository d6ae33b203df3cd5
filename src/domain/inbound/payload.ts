// The JSON an application receives for one inbound message, in the hosted service's inbound webhook shape
// (docs: "Inbound webhook"): sender and recipients as strings and as {Email, Name, MailboxHash} lists,
// bodies, the reply without its quote, headers, attachments in base64, and RawEmail when the server has
// RawEmailEnabled.
import type { Address, Email, Mailbox } from 'postal-mime';
import { splitPlus } from './inbound-address.js';
import { stripReply } from './strip-reply.js';

/** Base64 length without its '=' padding (counted from the end, not /=+$/, which rereads a run of '=' at each). */
function unpadded(base64: string): number {
  let end = base64.length;
  while (end > 0 && base64.charCodeAt(end - 1) === 61) end--;
  return end;
}

export interface InboundRecipient {
  Email: string;
  Name: string;
  MailboxHash: string;
}

export interface InboundAttachment {
  Name: string;
  Content: string;
  ContentType: string;
  ContentLength: number;
  ContentID: string;
}

export interface InboundPayload {
  From: string;
  FromName: string;
  FromFull: InboundRecipient;
  To: string;
  ToFull: InboundRecipient[];
  Cc: string;
  CcFull: InboundRecipient[];
  Bcc: string;
  BccFull: InboundRecipient[];
  OriginalRecipient: string;
  ReplyTo: string;
  Subject: string;
  MessageID: string;
  Date: string;
  MailboxHash: string;
  TextBody: string;
  HtmlBody: string;
  StrippedTextReply: string;
  Tag: string;
  Headers: Array<{ Name: string; Value: string }>;
  Attachments: InboundAttachment[];
  MessageStream: string;
  RawEmail?: string;
}

/** Headers shown as their own fields, left out of Headers. */
const OWN_FIELDS = new Set(['from', 'to', 'cc', 'bcc', 'subject', 'date', 'reply-to', 'content-type', 'content-transfer-encoding']);

/** Group members are listed as plain recipients. */
export function mailboxes(list: Address[] | undefined): Mailbox[] {
  return (list ?? []).flatMap((a) => (a.group ? a.group : [a as Mailbox]));
}

function full(m: Mailbox): InboundRecipient {
  const at = m.address.lastIndexOf('@');
  return { Email: m.address, Name: m.name ?? '', MailboxHash: at > 0 ? splitPlus(m.address.slice(0, at)).hash : '' };
}

const asText = (list: Mailbox[]) => list.map((m) => (m.name ? `"${m.name.replace(/(["\\])/g, '\\$1')}" <${m.address}>` : m.address)).join(', ');

export interface PayloadInput {
  id: string;
  email: Email;
  /** The message as the application may see it (RawEmailEnabled), or null. */
  rawEmail: string | null;
  originalRecipient: string;
  mailboxHash: string;
  /** The server's envelope recipients that the To and Cc headers do not name: listed in Bcc. */
  envelopeBcc: string[];
  streamId: string;
}

export function buildPayload(p: PayloadInput): InboundPayload {
  const { email } = p;
  const from = mailboxes(email.from ? [email.from] : [])[0] ?? { name: '', address: '' };
  const to = mailboxes(email.to);
  const cc = mailboxes(email.cc);
  const bcc = mailboxes(email.bcc);
  for (const address of p.envelopeBcc) if (!bcc.some((m) => m.address.toLowerCase() === address.toLowerCase())) bcc.push({ name: '', address });
  const header = (name: string) => email.headers.find((h) => h.key === name)?.value ?? '';
  const payload: InboundPayload = {
    From: from.address,
    FromName: from.name ?? '',
    FromFull: full(from),
    To: asText(to),
    ToFull: to.map(full),
    Cc: asText(cc),
    CcFull: cc.map(full),
    Bcc: asText(bcc),
    BccFull: bcc.map(full),
    OriginalRecipient: p.originalRecipient,
    ReplyTo: mailboxes(email.replyTo)
      .map((m) => m.address)
      .join(', '),
    Subject: email.subject ?? '',
    MessageID: p.id,
    // As the sending server wrote it (the hosted service passes the header through too).
    Date: header('date'),
    MailboxHash: p.mailboxHash,
    TextBody: email.text ?? '',
    HtmlBody: email.html ?? '',
    StrippedTextReply: stripReply(email.text),
    Tag: header('x-pm-tag'),
    Headers: email.headers.filter((h) => !OWN_FIELDS.has(h.key)).map((h) => ({ Name: h.originalKey || h.key, Value: h.value })),
    Attachments: email.attachments.map((a, i) => {
      const content = typeof a.content === 'string' ? a.content : Buffer.from(a.content as ArrayBuffer).toString('base64');
      return {
        Name: a.filename ?? `attachment-${i + 1}`,
        Content: content,
        ContentType: a.mimeType,
        ContentLength: Math.floor((unpadded(content) * 3) / 4),
        ContentID: a.contentId ?? '',
      };
    }),
    MessageStream: p.streamId,
  };
  if (p.rawEmail !== null) payload.RawEmail = p.rawEmail;
  return payload;
}

/** What is kept once the application has the message: attachment content and the raw source go. */
export function withoutContent(payload: InboundPayload): InboundPayload {
  const { RawEmail: _raw, ...rest } = payload;
  return { ...rest, Attachments: payload.Attachments.map((a) => ({ ...a, Content: '' })) };
}
