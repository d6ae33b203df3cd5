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
    const m = /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1].toLowerCase();
    const values = block.get(name) ?? [];
    values.push(m[2].trim());
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
  const v = value.includes(';') ? value.slice(value.indexOf(';') + 1) : value;
  const m = /<?([^<>\s;"]+@[^<>\s;"]+?)>?\s*(?:\(.*\))?$/.exec(v.trim());
  return m ? m[1] : null;
}

/** The value of a typed text field without its type: "smtp; 550 5.1.1 ..." -> "550 5.1.1 ...". */
export function typedValue(value: string | null): string | null {
  if (!value) return null;
  const m = /^\s*[a-z0-9-]+\s*;\s*(.*)$/i.exec(value);
  return (m ? m[1] : value).trim();
}
