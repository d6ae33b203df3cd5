// Encodings for composing MIME: RFC 2047 encoded words for non-ASCII header text, RFC 2231 parameters,
// quoted-printable (RFC 2045 6.7) and base64 (RFC 2045 6.8) bodies, and header folding (RFC 5322 2.2.3), so
// that what we send is 7-bit clean with lines within 78 characters where the content allows.

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ASCII = /^[\x00-\x7f]*$/;

/** The line length header fields are folded to, as nodemailer folds them: within RFC 5322 2.1.1's 78. */
export const FOLD_AT = 76;

const isWsp = (c: string | undefined): boolean => c === ' ' || c === '\t';

/**
 * Folds one unfolded header line (RFC 5322 2.2.3): a CRLF goes in before the last run of white space that
 * keeps the line within `max` characters; a word longer than that stays whole on its own line (there is no
 * legal place to break it). The same rule as nodemailer's mime-funcs foldLines (proved equal in
 * test/infra/mime/fold.test.ts), written as one pass over the line.
 */
export function foldLine(line: string, max = FOLD_AT): string {
  const out: string[] = [];
  let pos = 0;
  while (pos < line.length) {
    if (line.length - pos < max) {
      out.push(line.slice(pos));
      break;
    }
    const end = pos + max;
    // The start of the last run of white space within [pos, end), unless that run starts the line.
    let i = end - 1;
    while (i > pos && !isWsp(line[i])) i--;
    while (i > pos && isWsp(line[i - 1])) i--;
    let cut = i > pos ? i : -1;
    if (cut === -1) {
      // No break inside: the word runs on to the next white space.
      cut = end;
      while (cut < line.length && !isWsp(line[cut])) cut++;
    }
    out.push(line.slice(pos, cut));
    pos = cut;
  }
  return out.join('\r\n');
}

/** Folds an unstructured header field at white space (foldLine). */
export function foldField(name: string, value: string): string {
  return foldLine(`${name}: ${value}`);
}

/**
 * RFC 2047 B-encoded words of at most 52 characters each (30 octets of UTF-8, never splitting a character,
 * RFC 2047 6.3), separated by a space, which decoders drop between encoded words (RFC 2047 6.2); folded by
 * foldLine, no line passes 76 (RFC 2047 2). nodemailer's encodeWord(text, 'B', 52).
 */
export function encodeWords(text: string): string {
  const whole = Buffer.from(text).toString('base64');
  if (whole.length <= 40) return `=?UTF-8?B?${whole}?=`;
  const words: string[] = [];
  let chunk = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > 30 && chunk) {
      words.push(chunk);
      chunk = '';
      bytes = 0;
    }
    chunk += ch;
    bytes += n;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join(' ');
}

/** A header field of free text (Subject, custom headers): as is when printable ASCII, else encoded words. */
export function textField(name: string, value: string): string {
  const v = value.replace(/\r\n|\r|\n/g, ' ');
  return foldField(name, PRINTABLE_ASCII.test(v) ? v : encodeWords(v));
}

// A phrase made of atoms and dots may go unquoted (RFC 5322 3.2.5, obs-phrase 4.1).
const PLAIN_PHRASE = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~. ]+$/;

/** One mailbox for an address field: `addr`, `Name <addr>`, `"Doe, Jane" <addr>` or an encoded name. */
export function formatMailbox(name: string, address: string): string {
  const n = name.replace(/[\r\n]+/g, ' ').trim();
  if (!n) return address;
  if (!PRINTABLE_ASCII.test(n)) return `${encodeWords(n)} <${address}>`;
  if (PLAIN_PHRASE.test(n)) return `${n} <${address}>`;
  return `"${n.replace(/(["\\])/g, '\\$1')}" <${address}>`;
}

/** An address field: the mailboxes separated by ", ", folded at white space as nodemailer folds it. */
export function addressField(name: string, mailboxes: string[]): string {
  return foldField(name, mailboxes.join(', '));
}

const pctEncode = (v: string): string => encodeURIComponent(v).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Pieces of at most 50 characters (RFC 2231 3 continuations), never splitting a character. */
function sections(value: string, encode: (ch: string) => string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of value) {
    const e = encode(ch);
    if (cur.length + e.length > 50 && cur) {
      out.push(cur);
      cur = '';
    }
    cur += e;
  }
  out.push(cur);
  return out;
}

const quote = (v: string): string => `"${v.replace(/(["\\])/g, '\\$1')}"`;

/**
 * A Content-Type / Content-Disposition parameter: quoted when printable ASCII, else RFC 2231
 * `name*=utf-8''...`; a value of 75 characters or more goes in numbered continuations of at most 50
 * (RFC 2231 3), as nodemailer writes it, so that the field folds within 76 characters at the "; ".
 */
export function param(name: string, value: string): string {
  const v = value.replace(/[\r\n]+/g, ' ');
  const plain = PRINTABLE_ASCII.test(v);
  if (plain && v.length < 75) return `${name}=${quote(v)}`;
  if (plain) return sections(v, (c) => c).map((p, i) => `${name}*${i}=${quote(p)}`).join('; ');
  const parts = sections(v, pctEncode);
  if (parts.length === 1 && parts[0]!.length < 75) return `${name}*=utf-8''${parts[0]}`;
  return parts.map((p, i) => `${name}*${i}*=${i === 0 ? "utf-8''" : ''}${p}`).join('; ');
}

/** Base64 in lines of 76 characters (RFC 2045 6.8) separated by CRLF. */
export function base64Lines(data: Buffer): string {
  return data.toString('base64').replace(/(.{76})(?=.)/g, '$1\r\n');
}

const HEX = '0123456789ABCDEF';

/** Quoted-printable (RFC 2045 6.7) of text with CRLF line breaks: hard breaks kept, soft breaks at 76. */
export function quotedPrintable(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\r\n')) {
    const bytes = Buffer.from(line, 'utf8');
    let cur = '';
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      const last = i === bytes.length - 1;
      // Rule 3: white space at the end of a line is encoded, or transports may strip it.
      const literal = (c >= 33 && c <= 126 && c !== 61) || ((c === 32 || c === 9) && !last);
      const tok = literal ? String.fromCharCode(c) : `=${HEX[c >> 4]}${HEX[c & 15]}`;
      // Rule 5: encoded lines are at most 76 characters, the soft break's '=' included.
      if (cur.length + tok.length > 75) {
        out.push(`${cur}=`);
        cur = '';
      }
      cur += tok;
    }
    out.push(cur);
  }
  return out.join('\r\n');
}

/** How a text part travels: 7bit when it already fits, else quoted-printable, or base64 for mostly non-ASCII text. */
export function encodeText(text: string): { encoding: '7bit' | 'quoted-printable' | 'base64'; body: string } {
  const crlf = text.replace(/\r\n|\r|\n/g, '\r\n');
  if (ASCII.test(crlf) && !crlf.includes('\0') && crlf.split('\r\n').every((l) => l.length <= 76)) return { encoding: '7bit', body: crlf };
  const buf = Buffer.from(crlf, 'utf8');
  let high = 0;
  for (const c of buf) if (c >= 128) high++;
  if (high > buf.length / 3) return { encoding: 'base64', body: base64Lines(buf) };
  return { encoding: 'quoted-printable', body: quotedPrintable(crlf) };
}
