// Encodings for composing MIME: RFC 2047 encoded words for non-ASCII header text, RFC 2231 parameters,
// quoted-printable (RFC 2045 6.7) and base64 (RFC 2045 6.8) bodies, and header folding (RFC 5322 2.2.3), so
// that what we send is 7-bit clean with lines within 78 characters where the content allows.

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ASCII = /^[\x00-\x7f]*$/;

/** Folds an unstructured header field at spaces so that lines stay within 78 characters when possible. */
export function foldField(name: string, value: string): string {
  const line = `${name}: ${value}`;
  if (line.length <= 78) return line;
  const words = value.split(' ');
  let out = `${name}:`;
  let len = out.length;
  for (const [i, w] of words.entries()) {
    // Never fold before the first word: the first line keeps some of the value.
    if (i > 0 && len + 1 + w.length > 78) {
      out += '\r\n';
      len = 0;
    }
    out += ` ${w}`;
    len += 1 + w.length;
  }
  return out;
}

/**
 * RFC 2047 B-encoded words, each within 75 characters (45 octets of UTF-8 per word, never splitting a
 * character), separated by folding white space, which decoders drop between encoded words (RFC 2047 6.2).
 */
export function encodeWords(text: string): string {
  const words: string[] = [];
  let chunk = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > 45) {
      words.push(chunk);
      chunk = '';
      bytes = 0;
    }
    chunk += ch;
    bytes += n;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join('\r\n ');
}

/** A header field of free text (Subject, custom headers): as is when printable ASCII, else encoded words. */
export function textField(name: string, value: string): string {
  const v = value.replace(/\r\n|\r|\n/g, ' ');
  return PRINTABLE_ASCII.test(v) ? foldField(name, v) : `${name}: ${encodeWords(v)}`;
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

/** An address field, one mailbox per folded line when the list is long. */
export function addressField(name: string, mailboxes: string[]): string {
  const line = `${name}: ${mailboxes.join(', ')}`;
  return line.length <= 78 ? line : `${name}: ${mailboxes.join(',\r\n ')}`;
}

/** A Content-Type / Content-Disposition parameter; non-ASCII values use RFC 2231 `name*=utf-8''...`. */
export function param(name: string, value: string): string {
  const v = value.replace(/[\r\n]+/g, ' ');
  if (PRINTABLE_ASCII.test(v)) return `${name}="${v.replace(/(["\\])/g, '\\$1')}"`;
  const pct = encodeURIComponent(v).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${name}*=utf-8''${pct}`;
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
