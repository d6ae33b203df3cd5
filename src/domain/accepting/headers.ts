// Custom headers (docs/reference/sending.md, "Outgoing message": Headers). mailroom writes the headers that
// define the message itself. A header naming an address or the subject, which the message's own fields carry,
// is refused with ErrorCode 300 naming the field to use, so that the application learns at once that its
// header would not have gone out as written. The headers a mail library writes on every message (the Ruby
// gem's Mail integration copies Message-ID, Mime-Version and Content-Transfer-Encoding into Headers; Symfony,
// django-anymail and nodemailer put an application's Message-ID there) are accepted: the MIME ones and Date
// are replaced by mailroom's own, and Message-ID is replaced unless the message also carries the header
// `X-PM-KeepID: true`, as the hosted service does.
import { ApiError, ErrorCode } from '../errors.js';
import { MAX_HEADER_NAME, MAX_HEADER_VALUE, MAX_HEADERS } from './limits.js';

const bad = (msg: string) => new ApiError(ErrorCode.InvalidEmailRequest, msg);
// RFC 5322 2.2: field-name = 1*ftext, printable US-ASCII except ':'.
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
// CR, LF and NUL would inject header lines (RFC 5322 2.2); other controls except TAB have no place either.
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;
// RFC 5322 3.6.4 msg-id, read loosely as most mail libraries write it: `<left@right>` (the brackets may be
// left out), each side printable ASCII without spaces, brackets or a second '@'. Linear: no nested repetition.
const MSG_ID = /^<?([\x21-\x3b\x3d\x3f\x41-\x7e]+)@([\x21-\x3b\x3d\x3f\x41-\x7e]+)>?$/;

/** Header -> why it is refused. Matched case-insensitively (RFC 5322 1.2.2). */
const OWN_FIELD: Record<string, string> = {
  from: 'use the From field',
  to: 'use the To field',
  cc: 'use the Cc field',
  bcc: 'use the Bcc field',
  subject: 'use the Subject field',
  'reply-to': 'use the ReplyTo field',
  sender: 'mailroom writes it from the From field',
  'return-path': 'the receiving server adds it from the envelope (RFC 5321 4.4)',
  received: 'only relays add trace fields',
  'dkim-signature': 'mailroom signs the message with the domain key',
};
const REFUSED_PREFIXES: Array<[string, string]> = [['arc-', 'only relays add ARC fields (RFC 8617)']];

/** Accepted and left out: mailroom writes its own (Date when it is sent, the MIME structure). */
const REPLACED = new Set(['date', 'mime-version']);
const REPLACED_PREFIX = 'content-';

/** The header asking to keep the message's own Message-ID; read, never sent on. */
export const KEEP_ID = 'x-pm-keepid';

function keepsId(list: unknown[]): boolean {
  for (const h of list) {
    if (h === null || typeof h !== 'object') continue;
    const { Name, Value } = h as Record<string, unknown>;
    if (typeof Name === 'string' && Name.toLowerCase() === KEEP_ID && typeof Value === 'string' && Value.trim().toLowerCase() === 'true') return true;
  }
  return false;
}

/** A Message-ID value as kept: `<left@right>`; refused when it is not a msg-id. */
export function keptMessageId(value: string, where: string): string {
  const m = MSG_ID.exec(value.trim());
  if (!m) throw bad(`'${where}' is not a Message-ID (RFC 5322 3.6.4: <left@right>, printable ASCII without spaces).`);
  return `<${m[1]}@${m[2]}>`;
}

export function prepareHeaders(value: unknown): Array<{ Name: string; Value: string }> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("The field 'Headers' must be an array of {Name, Value}.");
  if (value.length > MAX_HEADERS) throw bad(`At most ${MAX_HEADERS} custom headers per message.`);
  const keepId = keepsId(value);
  const out: Array<{ Name: string; Value: string }> = [];
  let messageId: { Name: string; Value: string } | null = null;
  value.forEach((h: unknown, i) => {
    if (h === null || typeof h !== 'object' || Array.isArray(h)) throw bad(`'Headers[${i}]' must be an object {Name, Value}.`);
    const { Name, Value } = h as Record<string, unknown>;
    if (typeof Name !== 'string' || Name === '') throw bad(`'Headers[${i}].Name' is required.`);
    if (Name.length > MAX_HEADER_NAME || !FIELD_NAME.test(Name)) {
      throw bad(`'Headers[${i}].Name' is not a header field name (printable ASCII without spaces or ':', at most ${MAX_HEADER_NAME}).`);
    }
    if (Value !== undefined && Value !== null && typeof Value !== 'string') throw bad(`'Headers[${i}].Value' must be a string.`);
    const v = (Value as string | null | undefined) ?? '';
    if (BAD_VALUE.test(v)) throw bad(`'Headers[${i}].Value' contains CR, LF or other control characters.`);
    if (v.length > MAX_HEADER_VALUE) throw bad(`'Headers[${i}].Value' is longer than ${MAX_HEADER_VALUE} characters.`);
    const lower = Name.toLowerCase();
    const why = OWN_FIELD[lower] ?? REFUSED_PREFIXES.find(([p]) => lower.startsWith(p))?.[1];
    if (why) throw bad(`The header '${Name}' cannot be set through Headers: ${why}.`);
    if (lower === KEEP_ID || REPLACED.has(lower) || lower.startsWith(REPLACED_PREFIX)) return;
    if (lower === 'message-id') {
      // Checked only when kept (a replaced one costs nothing); the last one given, once.
      if (keepId) messageId = { Name: 'Message-ID', Value: keptMessageId(v, `Headers[${i}].Value`) };
      return;
    }
    out.push({ Name, Value: v });
  });
  if (messageId) out.push(messageId);
  return out;
}
