// The "header-like" field syntax shared by DSNs (RFC 3464 2.1: per-message fields, a blank line, then one
// block of per-recipient fields each) and feedback reports (RFC 5965 3.1), and by the header section of
// an attached original message (RFC 5322 2.2: folded lines continue with whitespace).

export type FieldBlock = Map<string, string[]>;

/** Splits text into blocks at blank lines; in each block, unfolds lines and collects `Name: value` pairs. */
export function parseFieldBlocks(text: string): FieldBlock[] {
  const blocks: FieldBlock[] = [];
  for (const chunk of text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/)) {
    const block = parseFields(chunk);
    if (block.size > 0) blocks.push(block);
  }
  return blocks;
}

// The helpers below scan instead of matching /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/ and the like: those patterns
// backtrack over every split of a run of blanks when the line holds a line separator (U+2028), quadratic in a
// stranger's line; the results are the same.
const FIELD_NAME = /^[!-9;-~]+$/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** `Name: value` (the name printable ASCII without ':', RFC 5322 2.2), or null. */
function fieldLine(line: string): { name: string; value: string } | null {
  const colon = line.indexOf(':');
  if (colon < 1) return null;
  let end = colon;
  while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  const name = line.slice(0, end);
  const rest = line.slice(colon + 1);
  if (!FIELD_NAME.test(name) || LINE_BREAK.test(rest)) return null;
  return { name, value: rest.trim() };
}

/** Fields of one block (or of a header section: stops at the first blank line). */
export function parseFields(text: string): FieldBlock {
  const block: FieldBlock = new Map();
  let last: { name: string; i: number } | null = null;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      if (block.size > 0) break;
      continue;
    }
    if (/^[ \t]/.test(line) && last) {
      const values = block.get(last.name)!;
      values[last.i] = `${values[last.i]} ${line.trim()}`;
      continue;
    }
    const f = fieldLine(line);
    if (!f) continue;
    const name = f.name.toLowerCase();
    const values = block.get(name) ?? [];
    values.push(f.value);
    block.set(name, values);
    last = { name, i: values.length - 1 };
  }
  return block;
}

export function field(block: FieldBlock | undefined, name: string): string | null {
  const v = block?.get(name.toLowerCase());
  return v && v.length > 0 ? v[0] : null;
}

/**
 * The address of a typed address field: "rfc822; user@example.com" (RFC 3464 2.1.2), also "RFC822;<a@b>"
 * and a bare address. Returns the address without angle brackets, or null.
 */
export function typedAddress(value: string | null): string | null {
  if (!value) return null;
  let v = (value.includes(';') ? value.slice(value.indexOf(';') + 1) : value).trim();
  // A trailing "(comment)" after the address, then the angle bracket that may close it.
  const at = v.indexOf('@');
  const open = at > 0 ? v.indexOf('(', at + 2) : -1;
  if (open > 0 && v.endsWith(')') && !LINE_BREAK.test(v.slice(open))) v = v.slice(0, open).trimEnd();
  if (v.endsWith('>')) v = v.slice(0, -1);
  // The address is the last run of characters that may stand in one, holding an '@' with text on both sides.
  let start = v.length;
  while (start > 0 && !/[<>\s;"]/.test(v[start - 1]!)) start--;
  const token = v.slice(start);
  const sign = token.indexOf('@', 1);
  return sign > 0 && sign < token.length - 1 ? token : null;
}

/** The value of a typed text field without its type: "smtp; 550 5.1.1 ..." -> "550 5.1.1 ...". */
export function typedValue(value: string | null): string | null {
  if (!value) return null;
  const semi = value.indexOf(';');
  const rest = semi > 0 ? value.slice(semi + 1).trimStart() : '';
  if (semi > 0 && /^[a-z0-9-]+$/i.test(value.slice(0, semi).trim()) && !LINE_BREAK.test(rest)) return rest.trim();
  return value.trim();
}
