// The message on the wire: MIME built by nodemailer's MailComposer (multipart/alternative for text+HTML,
// multipart/related for inline cid: parts, multipart/mixed for attachments; quoted-printable or base64 so
// that no line exceeds 78 characters and the body is 7-bit clean, RFC 5322 2.1.1 / RFC 2045 6), then
// DKIM-signed (RFC 6376, rsa-sha256, relaxed/relaxed) with nodemailer's signer.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import DKIM from 'nodemailer/lib/dkim';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailComposerAttachment } from 'nodemailer/lib/mail-composer';
import { parseSingleMailbox } from '../mail/address.js';
import type { SigningKey } from '../senders/signing.js';

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

function mailbox(raw: string): { name: string; address: string } | string {
  try {
    const m = parseSingleMailbox(raw);
    return { name: m.name, address: m.ascii };
  } catch {
    return raw;
  }
}

/** Builds the MIME source. `withContent: false` leaves attachment content out (the stored copy, rule 6). */
export async function composeMime(input: ComposeInput, withContent = true): Promise<Buffer> {
  let messageId = input.messageIdHeader;
  const headers: Array<{ key: string; value: string }> = [];
  for (const h of input.headers) {
    const k = h.Name.trim().toLowerCase();
    if (k === 'message-id') {
      // An application that sets its own Message-ID (threading with its own ids) keeps it.
      const v = h.Value.trim();
      if (v) messageId = v.startsWith('<') ? v : `<${v}>`;
      continue;
    }
    if (RESERVED.has(k)) continue;
    headers.push({ key: h.Name.trim(), value: h.Value });
  }
  for (const h of input.extraHeaders ?? []) headers.push(h);
  const attachments: MailComposerAttachment[] = input.attachments.map((a) => ({
    filename: a.name,
    contentType: a.contentType,
    content: withContent && a.content ? Buffer.from(a.content, 'base64') : Buffer.alloc(0),
    ...(a.contentId ? { cid: a.contentId, contentDisposition: 'inline' } : {}),
  }));
  const composer = new MailComposer({
    from: mailbox(input.fromRaw),
    to: input.to.map((r) => ({ name: r.name, address: r.email })),
    cc: input.cc.length ? input.cc.map((r) => ({ name: r.name, address: r.email })) : undefined,
    replyTo: input.replyTo ?? undefined,
    subject: input.subject,
    messageId,
    date: input.date,
    text: input.text ?? (input.html === null ? '' : undefined),
    html: input.html ?? undefined,
    headers,
    attachments,
  });
  return composer.compile().build();
}

// Parsing a PEM key costs more than signing with it; keys are few, so the parsed form is kept.
const keyCache = new Map<string, KeyObject>();
function keyObject(pem: string): KeyObject {
  let k = keyCache.get(pem);
  if (!k) {
    k = createPrivateKey(pem);
    if (keyCache.size > 1000) keyCache.clear();
    keyCache.set(pem, k);
  }
  return k;
}

/** Header fields signed: nodemailer's RFC 6376 5.4 list plus the one-click unsubscribe field (RFC 8058 4). */
const SIGNED_FIELDS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'Content-ID:Content-Description:In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:' +
  'List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive:Feedback-ID';

/** Prepends a DKIM-Signature header. */
export async function dkimSign(raw: Buffer, key: SigningKey): Promise<Buffer> {
  const signer = new DKIM({
    domainName: key.domainName,
    keySelector: key.keySelector,
    privateKey: keyObject(key.privateKey) as unknown as string,
    headerFieldNames: SIGNED_FIELDS,
    cacheDir: false,
  });
  const out = signer.sign(raw);
  const chunks: Buffer[] = [];
  for await (const c of out) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
