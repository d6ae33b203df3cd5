// RFC 5322 address lists as applications write them in From/To/Cc/Bcc/ReplyTo: bare addresses, display
// names (`Name <a@b>`), quoted names with commas inside (`"Doe, Jane" <a@b>`), quoted-pair escapes,
// comments, groups (`team: a@b, c@d;`) and IDN domains (RFC 5890, stored as A-labels via domainToASCII).
import { domainToASCII } from 'node:url';

export class AddressError extends Error {}

export interface Mailbox {
  /** Decoded display name ('' when none). */
  name: string;
  /** The address as written (local part as given, domain as given). */
  address: string;
  /** The address with its domain as a lowercase A-label; the local part as given. */
  ascii: string;
  /** The domain as a lowercase A-label. */
  domain: string;
}

// atext of RFC 5322 3.2.3.
const ATEXT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// Characters that RFC 5322 calls "specials": a display name holding any of them (other than '.', allowed by
// obs-phrase, RFC 5322 4.1) must be quoted.
const SPECIALS = /[()<>[\]:;@\\,"]/;
// Control characters never belong in an address header (they would allow header injection).
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Splits an address list at top-level commas, honouring quotes, comments, angle brackets and groups. */
function splitList(text: string): string[] {
  const items: string[] = [];
  let cur = '';
  let quoted = false;
  let comment = 0;
  let angle = false;
  let group = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted || comment > 0) {
      cur += c;
      if (c === '\\') {
        if (i + 1 >= text.length) throw new AddressError('a backslash ends the text');
        cur += text[++i];
      } else if (quoted && c === '"') quoted = false;
      else if (!quoted && c === '(') comment++;
      else if (!quoted && c === ')') comment--;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '(') comment = 1;
    else if (c === '<') {
      if (angle) throw new AddressError("a '<' inside an angle-bracketed address");
      angle = true;
    } else if (c === '>') {
      if (!angle) throw new AddressError("a '>' without a matching '<'");
      angle = false;
    } else if (!angle && c === ',') {
      items.push(cur);
      cur = '';
      continue;
    } else if (!angle && c === ':' && !group) {
      // A group (RFC 5322 3.4): the display name before ':' is dropped, its members are the addresses.
      group = true;
      cur = '';
      continue;
    } else if (!angle && c === ';' && group) {
      items.push(cur);
      cur = '';
      group = false;
      continue;
    }
    cur += c;
  }
  if (quoted) throw new AddressError('an unterminated quoted string');
  if (comment > 0) throw new AddressError('an unterminated comment');
  if (angle) throw new AddressError("a '<' without a matching '>'");
  if (group) throw new AddressError("a group without its closing ';'");
  items.push(cur);
  return items;
}

/** Removes comments outside quoted strings; returns the rest. */
function stripComments(text: string): string {
  let out = '';
  let quoted = false;
  let comment = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (comment > 0) {
      if (c === '\\') i++;
      else if (c === '(') comment++;
      else if (c === ')') comment--;
      continue;
    }
    if (quoted) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    if (c === '(') {
      comment = 1;
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

/** Decodes a display name: quoted strings unescaped, unquoted words checked for specials. */
function decodeName(raw: string): string {
  const text = stripComments(raw).trim();
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      i++;
      for (; i < text.length && text[i] !== '"'; i++) out += text[i] === '\\' ? text[++i] : text[i];
      continue;
    }
    if (SPECIALS.test(c)) throw new AddressError(`the display name has an unquoted '${c}'; put the name in double quotes`);
    out += c;
  }
  return out.replace(/\s+/g, ' ').trim();
}

function parseLocal(local: string): void {
  if (local.startsWith('"') && local.endsWith('"') && local.length >= 2) {
    // quoted-string local part (RFC 5322 3.4.1): printable ASCII, quoted-pairs allowed.
    const inner = local.slice(1, -1);
    if (!/^(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*$/.test(inner)) throw new AddressError('the quoted local part holds characters that are not printable ASCII');
    return;
  }
  // dot-atom: non-ASCII local parts (RFC 6531) are refused, since relays without SMTPUTF8 cannot carry them.
  const atoms = local.split('.');
  if (atoms.some((a) => !ATEXT.test(a))) throw new AddressError(`'${local}' is not a valid local part`);
}

function parseDomain(domain: string): string {
  if (domain.startsWith('[')) throw new AddressError('address literals ([1.2.3.4]) are not accepted');
  const ascii = domainToASCII(domain.toLowerCase());
  if (!ascii) throw new AddressError(`'${domain}' is not a valid domain`);
  const labels = ascii.split('.');
  if (ascii.length > 253 || labels.length < 2 || labels.some((l) => !LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1])) {
    throw new AddressError(`'${domain}' is not a valid domain`);
  }
  return ascii;
}

/**
 * The text outside "quoted strings" (RFC 5322 3.2.4, with backslash escapes). Scanned: the pattern
 * /"(?:[^"\\]|\\.)*"/g reread the rest of the text from every quote when one was left open (quadratic).
 * An open quote and what follows it stay as they are, as with that pattern.
 */
function outsideQuotes(s: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const q = s.indexOf('"', i);
    if (q === -1) return out + s.slice(i);
    let j = q + 1;
    while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    if (j >= s.length) return out + s.slice(i);
    out += s.slice(i, q);
    i = j + 1;
  }
}

function parseAddrSpec(spec: string): { address: string; ascii: string; domain: string } {
  const s = spec.trim();
  if (s === '') throw new AddressError('an empty address');
  if (/\s/.test(outsideQuotes(s))) throw new AddressError(`'${s}' contains spaces`);
  const at = s.lastIndexOf('@');
  if (at <= 0 || at === s.length - 1) throw new AddressError(`'${s}' is not an address (local@domain)`);
  const local = s.slice(0, at);
  const domainRaw = s.slice(at + 1);
  parseLocal(local);
  const domain = parseDomain(domainRaw);
  // RFC 5321 4.5.3.1: local part at most 64 octets, a path at most 256 (so an address at most 254).
  if (Buffer.byteLength(local) > 64) throw new AddressError(`the local part of '${s}' is longer than 64 characters`);
  const ascii = `${local}@${domain}`;
  if (ascii.length > 254) throw new AddressError(`'${s}' is longer than 254 characters`);
  return { address: s, ascii, domain };
}

/** No mailbox (display name and address) is longer; also keeps the regular expressions below on short text. */
const MAX_MAILBOX = 1000;

function parseMailbox(item: string): Mailbox {
  if (item.length > MAX_MAILBOX) throw new AddressError(`an address longer than ${MAX_MAILBOX} characters`);
  // Find a top-level '<' (outside quotes and comments).
  let quoted = false;
  let comment = 0;
  let lt = -1;
  for (let i = 0; i < item.length && lt < 0; i++) {
    const c = item[i];
    if (c === '\\' && (quoted || comment)) i++;
    else if (quoted) quoted = c !== '"';
    else if (comment) comment += c === '(' ? 1 : c === ')' ? -1 : 0;
    else if (c === '"') quoted = true;
    else if (c === '(') comment = 1;
    else if (c === '<') lt = i;
  }
  if (lt < 0) {
    const spec = parseAddrSpec(stripComments(item));
    return { name: '', ...spec };
  }
  const gt = item.indexOf('>', lt);
  if (stripComments(item.slice(gt + 1)).trim() !== '') throw new AddressError(`unexpected text after '>' in '${item.trim()}'`);
  const spec = parseAddrSpec(item.slice(lt + 1, gt));
  return { name: decodeName(item.slice(0, lt)), ...spec };
}

// A lone dot-atom address at a lowercase ASCII host name: the shape of most recipients. For such text the
// full parser below returns exactly { name: '', address: text, ascii: text, domain }, so it is answered
// here without splitting, comment stripping and IDNA conversion (about 9% of the CPU of a 500-message
// batch, bench/README.md). "xn--" labels, upper case, quotes and anything else take the full parser.
const PLAIN = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(?:\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?)$/;

function plainMailbox(text: string): Mailbox | null {
  if (text.length > 254 || text.includes('xn--')) return null;
  const m = PLAIN.exec(text);
  if (!m || text.length - m[1].length - 1 > 64) return null;
  return { name: '', address: text, ascii: text, domain: m[1] };
}

/** Parses a comma-separated address list. Empty elements (a trailing comma) are skipped. */
export function parseAddressList(text: string): Mailbox[] {
  const plain = plainMailbox(text);
  if (plain) return [plain];
  if (CONTROL.test(text)) throw new AddressError('control characters (CR, LF, ...) are not allowed');
  return splitList(text)
    .filter((item) => stripComments(item).trim() !== '')
    .map(parseMailbox);
}

/** Parses exactly one mailbox (From). */
export function parseSingleMailbox(text: string): Mailbox {
  const list = parseAddressList(text);
  if (list.length !== 1) throw new AddressError(list.length === 0 ? 'no address given' : 'exactly one address is expected');
  return list[0];
}
