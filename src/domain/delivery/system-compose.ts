// The MIME of the service's own mail (sender confirmations, data-removal notices), built so that a link in
// it arrives whole. Customer mail (compose.ts) keeps every line within 78 characters with quoted-printable,
// which splits a 130-character confirmation link with soft line breaks ("=" CRLF): decoders join it again,
// but the raw source, plain-text readers that show it and people copying the link see it cut.
// RFC 5322 2.1.1 only requires lines of at most 998 octets (78 is a SHOULD), so:
//  - the HTML part is made ASCII (non-ASCII characters as HTML numeric character references, which every
//    HTML reader decodes) and travels as 7bit: its href is one unbroken line in the raw source, always;
//  - the text part travels as 7bit when it is ASCII, so its link line is unbroken too; when it holds other
//    characters (a name, a personal note) it cannot be 7bit and quoted-printable must keep 76-character lines
//    (RFC 2045 6.7 rule 5): the link is then whole after decoding, and whole in the raw source in the HTML.
import { addressField, foldField, formatMailbox, quotedPrintable, textField } from '../../infra/mime/mime-encode.js';
import { serialize, wrap, type Leaf } from '../../infra/mime/mime-tree.js';

/** RFC 5322 2.1.1: at most 998 octets on a line, CRLF excluded; one less for the dot SMTP may prepend (RFC 5321 4.5.2). */
const MAX_LINE = 997;
const ASCII_TEXT = /^[\x01-\x7f]*$/;

export interface SystemMimeInput {
  messageIdHeader: string;
  date: Date;
  fromName: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  extraHeaders: Array<{ key: string; value: string }>;
}

const crlf = (s: string): string => s.replace(/\r\n|\r|\n/g, '\r\n');

/** Non-ASCII characters as numeric character references (HTML Living Standard 13.1.4): the part is ASCII. */
export const asciiHtml = (html: string): string => html.replace(/[^\x00-\x7f]/gu, (c) => `&#${c.codePointAt(0)};`);

/** 7bit when every line is ASCII within 998 octets, else quoted-printable. */
function linkSafePart(subtype: 'plain' | 'html', text: string): Leaf {
  const body = crlf(text);
  const sevenBit = ASCII_TEXT.test(body) && body.split('\r\n').every((l) => l.length <= MAX_LINE);
  return {
    headers: [`Content-Type: text/${subtype}; charset=utf-8`, `Content-Transfer-Encoding: ${sevenBit ? '7bit' : 'quoted-printable'}`],
    body: sevenBit ? body : quotedPrintable(body),
  };
}

export function composeSystemMime(m: SystemMimeInput): Buffer {
  const top = [
    foldField('From', formatMailbox(m.fromName, m.from)),
    addressField('To', [m.to]),
    textField('Subject', m.subject),
    foldField('Message-ID', m.messageIdHeader),
    `Date: ${m.date.toUTCString().replace(/GMT$/, '+0000')}`,
    ...m.extraHeaders.map((h) => textField(h.key, h.value)),
  ];
  const parts = [linkSafePart('plain', m.text), ...(m.html === null ? [] : [linkSafePart('html', asciiHtml(m.html))])];
  return serialize(top, wrap('alternative', parts));
}
