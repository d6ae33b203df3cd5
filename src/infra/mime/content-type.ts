// A Content-Type value a client gives for an attachment: read in one pass (no regular expression over the
// parameters, so the time is linear in the value's length whatever it holds), and written back with each
// parameter once.
//
// RFC 2045 5.1: type "/" subtype *(";" attribute "=" value), value a token or a quoted-string.
// RFC 2045 6.4 and RFC 2046 5: the composite types (multipart, message) may not be base64-encoded, and
// mailroom writes every attachment in base64; RFC 2046 5.1.1 also needs a multipart's body to hold its
// boundary, which an attachment's opaque content does not.
import { param } from './mime-encode.js';

export interface ContentType {
  /** Lowercase type and subtype, e.g. "application" and "pdf". */
  type: string;
  subtype: string;
  /** Parameters in the order given, attribute names lowercased, each name once (the first one kept). */
  params: Array<[string, string]>;
}

// RFC 6838 4.2 restricted-name characters for type and subtype.
const NAME_CHAR = /^[A-Za-z0-9!#$&^_.+-]$/;
// RFC 2045 5.1 token: printable US-ASCII except space and tspecials.
const TSPECIALS = '()<>@,;:\\"/[]?=';
const isTokenChar = (c: string) => c > ' ' && c < '\u007f' && !TSPECIALS.includes(c);

function readName(s: string, from: number, stop: string): number {
  let i = from;
  while (i < s.length && NAME_CHAR.test(s[i]!)) i++;
  return i > from && (i === s.length || stop.includes(s[i]!) || s[i] === ' ' || s[i] === '\t') ? i : -1;
}

const skipSpace = (s: string, i: number) => {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  return i;
};

/** The parsed value, or a reason it is not one. */
export function parseContentType(value: string): ContentType | string {
  const s = value.trim();
  const slash = readName(s, 0, '/');
  if (slash < 0 || s[slash] !== '/') return 'is not a MIME type (type/subtype)';
  const end = readName(s, slash + 1, ';');
  if (end < 0) return 'is not a MIME type (type/subtype)';
  const out: ContentType = { type: s.slice(0, slash).toLowerCase(), subtype: s.slice(slash + 1, end).toLowerCase(), params: [] };
  const seen = new Set<string>();
  let i = skipSpace(s, end);
  while (i < s.length) {
    if (s[i] !== ';') return 'has text after the type that is not a parameter';
    i = skipSpace(s, i + 1);
    if (i === s.length) break; // a trailing ";"
    if (s[i] === ';') continue;
    const a = i;
    while (i < s.length && isTokenChar(s[i]!)) i++;
    const attribute = s.slice(a, i).toLowerCase();
    i = skipSpace(s, i);
    if (attribute === '' || s[i] !== '=') return `has a malformed parameter near '${s.slice(a, a + 20)}'`;
    i = skipSpace(s, i + 1);
    let v = '';
    if (s[i] === '"') {
      // RFC 822 3.3 quoted-string: find the closing quote (skipping quoted-pairs), then unescape the pairs
      // in one pass (a single-character pattern: no backtracking).
      const start = ++i;
      let escaped = false;
      while (i < s.length && s.charCodeAt(i) !== 0x22) {
        if (s.charCodeAt(i) === 0x5c) {
          escaped = true;
          i++;
        }
        i++;
      }
      if (i >= s.length) return `has an unterminated quoted value in parameter '${attribute}'`;
      v = escaped ? s.slice(start, i).replace(/\\([\s\S])/g, '$1') : s.slice(start, i);
      i++;
    } else {
      const b = i;
      while (i < s.length && isTokenChar(s[i]!)) i++;
      v = s.slice(b, i);
      if (v === '') return `has no value for parameter '${attribute}'`;
    }
    i = skipSpace(s, i);
    if (!seen.has(attribute)) {
      seen.add(attribute);
      out.params.push([attribute, v]);
    }
  }
  return out;
}

/** RFC 2046 5: multipart and message are composite media types; everything else is a leaf. */
export const isComposite = (ct: Pick<ContentType, 'type'>): boolean => ct.type === 'multipart' || ct.type === 'message';

/**
 * A parameter mailroom writes itself, which the client's value must not repeat: the file name (`name`, and
 * its RFC 2231 forms `name*`, `name*0`, `name*0*`, ...).
 */
export function isOwnParam(attribute: string): boolean {
  const star = attribute.indexOf('*');
  return (star < 0 ? attribute : attribute.slice(0, star)) === 'name';
}

/** A parameter as a token when its value is one, else quoted (or RFC 2231 encoded when not ASCII). */
export function paramText(attribute: string, value: string): string {
  let token = value !== '';
  for (const c of value) if (!isTokenChar(c)) token = false;
  // An RFC 2231 extended value (attribute ending in "*") is already in its encoded form.
  return token || attribute.endsWith('*') ? `${attribute}=${value}` : param(attribute, value);
}
