// The DATA payload of an SMTP transaction (RFC 5321 4.5.2): every line that starts with "." gets one more,
// and the data ends with CRLF "." CRLF. Done on the whole buffer at once, so the message goes out in a single
// write; a message with no line starting with "." (the usual case) is not copied but once.

const LF = 0x0a;
const DOT = 0x2e;
const END_CRLF = Buffer.from('.\r\n');
const END_BARE = Buffer.from('\r\n.\r\n');

export function dotStuff(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  if (raw.length > 0 && raw[0] === DOT) {
    parts.push(Buffer.from('.'));
  }
  for (let i = raw.indexOf('\n.'); i !== -1; i = raw.indexOf('\n.', i + 2)) {
    parts.push(raw.subarray(from, i + 1), Buffer.from('.'));
    from = i + 1;
  }
  parts.push(raw.subarray(from));
  // A last line without its line break gets one before the terminating dot.
  const endsWithLine = raw.length >= 2 && raw[raw.length - 2] === 0x0d && raw[raw.length - 1] === LF;
  parts.push(raw.length === 0 || endsWithLine ? END_CRLF : END_BARE);
  return Buffer.concat(parts);
}
