// DKIM "relaxed" canonicalization (RFC 6376 3.4.2 header, 3.4.4 body). Messages are handled as latin1
// strings: one character per octet, so any byte survives the round trip and the hash sees exactly the
// octets on the wire.

/** One header field of a message: its name as written, and the whole field (folded lines, no final CRLF). */
export interface HeaderField {
  name: string;
  raw: string;
}

/** Splits a message into its header fields and its body (the octets after the empty line). */
export function splitMessage(message: string): { fields: HeaderField[]; body: string } {
  let end = message.indexOf('\r\n\r\n');
  let bodyStart = end + 4;
  if (end === -1) {
    // A message without a body: the header block runs to the end (RFC 5322 3.5 makes the body optional).
    end = message.endsWith('\r\n') ? message.length - 2 : message.length;
    bodyStart = message.length;
  }
  const fields: HeaderField[] = [];
  for (const line of message.slice(0, end).split('\r\n')) {
    // A line starting with white space continues the previous field (folding, RFC 5322 2.2.3).
    if ((line[0] === ' ' || line[0] === '\t') && fields.length > 0) {
      fields[fields.length - 1].raw += `\r\n${line}`;
      continue;
    }
    const colon = line.indexOf(':');
    fields.push({ name: colon === -1 ? line : line.slice(0, colon), raw: line });
  }
  return { fields, body: message.slice(bodyStart) };
}

/**
 * RFC 6376 3.4.2: lowercase the name, unfold, reduce white space runs to one space, drop white space at the
 * end of the value and around the colon. Returned without the trailing CRLF.
 */
export function relaxedHeader(raw: string): string {
  const colon = raw.indexOf(':');
  const name = raw.slice(0, colon).trimEnd().toLowerCase();
  const value = raw
    .slice(colon + 1)
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  return `${name}:${value}`;
}

/**
 * RFC 6376 3.4.4: white space at the end of each line removed, runs of white space inside a line reduced to
 * one space, empty lines at the end removed; a non-empty body ends with CRLF, an empty body stays empty.
 */
export function relaxedBody(body: string): string {
  // Runs reduced first, then the one space left at a line's end removed: the same result as removing runs at line
  // ends first, but linear (/[ \t]+(?=\r\n|$)/ rereads a long run of blanks from each of its positions).
  let b = body.replace(/[ \t]+/g, ' ').replace(/ (?=\r\n|$)/g, '');
  let end = b.length;
  while (end >= 2 && b.charCodeAt(end - 2) === 13 && b.charCodeAt(end - 1) === 10) end -= 2;
  b = b.slice(0, end);
  return b.length === 0 ? '' : `${b}\r\n`;
}
