// Header fields a sender may write to pass for mailroom's own verdicts, removed before the application sees the
// message. RFC 8601 section 5: an MTA at the border of its administrative domain MUST delete any
// Authentication-Results field that claims, by its authserv-id, to come from inside that boundary; mailroom's
// authserv-id is MAILROOM_INBOUND_DOMAIN. Received-SPF (RFC 7208 9.1) names no authserv-id, and mailroom
// checks SPF of every message, so a sender's are removed too; the X-Spam-* fields are removed when mailroom
// scores the message itself (MAILROOM_SPAMD), as SpamAssassin removes earlier ones when it adds its own.
// Results of other authserv-ids (a forwarding provider's) stay. mailroom's own fields are put above the rest.
// One pass over the header section's lines, linear in its size; the body is not touched (nor copied when
// nothing is removed).

export interface OwnHeaderRules {
  /** mailroom's authserv-id (case-insensitive). */
  authservId: string;
  /** Whether mailroom scored the message for spam (its X-Spam-* fields are added). */
  spamScored: boolean;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

/** The authserv-id of an Authentication-Results value (RFC 8601 2.2: `[CFWS] authserv-id`), lowercased. */
export function authservIdOf(value: string): string {
  let i = 0;
  let depth = 0;
  while (i < value.length) {
    const c = value.charCodeAt(i);
    if (depth > 0) {
      if (c === 0x5c) i++; // quoted-pair inside a comment
      else if (c === 0x28) depth++;
      else if (c === 0x29) depth--;
      i++;
    } else if (c === 0x28) {
      depth++;
      i++;
    } else if (isSpace(c)) i++;
    else break;
  }
  if (value.charCodeAt(i) === 0x22) {
    let out = '';
    for (let j = i + 1; j < value.length; j++) {
      const c = value[j];
      if (c === '\\') out += value[++j] ?? '';
      else if (c === '"') break;
      else out += c;
    }
    return out.toLowerCase();
  }
  let j = i;
  while (j < value.length) {
    const c = value.charCodeAt(j);
    if (isSpace(c) || c === 0x3b || c === 0x28) break;
    j++;
  }
  return value.slice(i, j).toLowerCase();
}

function removes(raw: Buffer, start: number, end: number, rules: OwnHeaderRules): boolean {
  // Searched within the field only: a scan past it would make many colon-less lines quadratic.
  const at = raw.subarray(start, end).indexOf(0x3a);
  if (at < 0) return false;
  const colon = start + at;
  const name = raw.toString('latin1', start, colon).trim().toLowerCase();
  if (name === 'authentication-results') return authservIdOf(raw.toString('latin1', colon + 1, end)) === rules.authservId.toLowerCase();
  if (name === 'received-spf') return true;
  return rules.spamScored && name.startsWith('x-spam-');
}

/** The message without the header fields that would pass for mailroom's own (the same Buffer when none). */
export function withoutForgedHeaders(raw: Buffer, rules: OwnHeaderRules): Buffer {
  // Kept byte ranges, neighbours merged: a header of many fields is still a few pieces.
  const keep: Array<[number, number]> = [];
  let pos = 0;
  let fieldStart = 0;
  const closeField = (end: number) => {
    if (end <= fieldStart || removes(raw, fieldStart, end, rules)) return;
    const last = keep[keep.length - 1];
    if (last && last[1] === fieldStart) last[1] = end;
    else keep.push([fieldStart, end]);
  };
  while (pos < raw.length) {
    const nl = raw.indexOf(0x0a, pos);
    const lineEnd = nl < 0 ? raw.length : nl + 1;
    const first = raw[pos];
    // The empty line ends the header section (RFC 5322 2.1).
    if (first === 0x0a || (first === 0x0d && raw[pos + 1] === 0x0a)) break;
    // A line starting with white space continues the field above it (folding, RFC 5322 2.2.3).
    if (first !== 0x20 && first !== 0x09) {
      closeField(pos);
      fieldStart = pos;
    }
    pos = lineEnd;
  }
  closeField(pos);
  if (keep.length === 1 && keep[0][0] === 0 && keep[0][1] === pos) return raw;
  if (keep.length === 0 && pos === 0) return raw;
  return Buffer.concat([...keep.map(([a, b]) => raw.subarray(a, b)), raw.subarray(pos)]);
}
