// Custom headers (docs/reference/sending.md, "Outgoing message": Headers). mailroom writes the headers that
// define the message itself, so a custom header may not replace them: it is refused with ErrorCode 300 naming
// the field to use instead. Refused (not silently ignored) so that the application learns at once that its
// header would not have gone out as written.
import { ApiError, ErrorCode } from '../errors.js';
import { MAX_HEADER_NAME, MAX_HEADER_VALUE, MAX_HEADERS } from './limits.js';

const bad = (msg: string) => new ApiError(ErrorCode.InvalidEmailRequest, msg);
// RFC 5322 2.2: field-name = 1*ftext, printable US-ASCII except ':'.
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
// CR, LF and NUL would inject header lines (RFC 5322 2.2); other controls except TAB have no place either.
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Header -> why it is refused. Matched case-insensitively (RFC 5322 1.2.2). */
const OWN_FIELD: Record<string, string> = {
  from: 'use the From field',
  to: 'use the To field',
  cc: 'use the Cc field',
  bcc: 'use the Bcc field',
  subject: 'use the Subject field',
  'reply-to': 'use the ReplyTo field',
  sender: 'mailroom writes it from the From field',
  date: 'mailroom sets it when the message is sent',
  'message-id': 'mailroom assigns it',
  'return-path': 'the receiving server adds it from the envelope (RFC 5321 4.4)',
  received: 'only relays add trace fields',
  'dkim-signature': 'mailroom signs the message with the domain key',
  'mime-version': 'mailroom builds the MIME structure',
};
const RESERVED_PREFIXES: Array<[string, string]> = [
  ['content-', 'mailroom builds the MIME structure'],
  ['arc-', 'only relays add ARC fields (RFC 8617)'],
];

export function prepareHeaders(value: unknown): Array<{ Name: string; Value: string }> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("The field 'Headers' must be an array of {Name, Value}.");
  if (value.length > MAX_HEADERS) throw bad(`At most ${MAX_HEADERS} custom headers per message.`);
  return value.map((h: unknown, i) => {
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
    const why = OWN_FIELD[lower] ?? RESERVED_PREFIXES.find(([p]) => lower.startsWith(p))?.[1];
    if (why) throw bad(`The header '${Name}' cannot be set through Headers: ${why}.`);
    return { Name, Value: v };
  });
}
