// A MIME entity tree and its serialization into one Buffer with CRLF line ends (RFC 2045, RFC 2046). Built
// synchronously in memory: nodemailer's MailComposer streams every part through Node streams, which cost
// ~0.5 ms of CPU for a small two-part message, about twice the RSA-2048 signature made over it.
import { randomBytes } from 'node:crypto';
import { isComposite, isOwnParam, paramText, parseContentType } from './content-type.js';
import { base64Lines, encodeText, foldField, param } from './mime-encode.js';

export interface Leaf {
  /** Header fields of the part (Content-Type first), without CRLF. */
  headers: string[];
  /** The encoded body, 7-bit clean. */
  body: string;
}

export interface Multipart {
  /** alternative | related | mixed */
  subtype: string;
  parts: Entity[];
}

export type Entity = Leaf | Multipart;

const isMultipart = (e: Entity): e is Multipart => (e as Multipart).parts !== undefined;

export function textPart(subtypeName: 'plain' | 'html', text: string): Leaf {
  const { encoding, body } = encodeText(text);
  return { headers: [`Content-Type: text/${subtypeName}; charset=utf-8`, `Content-Transfer-Encoding: ${encoding}`], body };
}

export interface AttachmentPart {
  name: string;
  contentType: string;
  /** Without angle brackets; inline parts referenced from the HTML as cid:. */
  contentId: string | null;
  content: Buffer;
}

/**
 * The Content-Type of an attachment: the client's type and parameters, each written once, with mailroom's own
 * `name` in place of any the client gave. A value that is not a leaf type (accepted before it was refused,
 * RFC 2045 6.4) or does not parse is written as application/octet-stream: the bytes still arrive.
 */
function attachmentType(contentType: string, name: string): string {
  const ct = parseContentType(contentType.replace(/[\r\n]+/g, ' '));
  if (typeof ct === 'string' || isComposite(ct)) return `application/octet-stream; ${param('name', name)}`;
  const params = ct.params.filter(([k]) => !isOwnParam(k)).map(([k, v]) => paramText(k, v));
  return [`${ct.type}/${ct.subtype}`, ...params, param('name', name)].join('; ');
}

export function attachmentPart(a: AttachmentPart): Leaf {
  const headers = [foldField('Content-Type', attachmentType(a.contentType, a.name)), 'Content-Transfer-Encoding: base64'];
  headers.push(foldField('Content-Disposition', `${a.contentId ? 'inline' : 'attachment'}; ${param('filename', a.name)}`));
  if (a.contentId) headers.push(foldField('Content-ID', `<${a.contentId.replace(/[\r\n<>]+/g, '')}>`));
  return { headers, body: base64Lines(a.content) };
}

/** One multipart level, or the single part itself when there is nothing to wrap it with. */
export function wrap(subtype: string, parts: Entity[]): Entity {
  return parts.length === 1 ? parts[0] : { subtype, parts };
}

// Boundaries: a random prefix per process and a counter, never found in base64, quoted-printable or our
// 7-bit text lines by chance ("=_" cannot start a quoted-printable line, RFC 2046 5.1.1).
const PREFIX = `=_mr_${randomBytes(6).toString('hex')}_`;
let counter = 0;

function write(e: Entity, out: string[]): void {
  if (!isMultipart(e)) {
    out.push(e.headers.join('\r\n'), '\r\n\r\n', e.body);
    return;
  }
  const boundary = `${PREFIX}${(counter++).toString(36)}`;
  out.push(`Content-Type: multipart/${e.subtype};\r\n boundary="${boundary}"\r\n\r\n`);
  for (const p of e.parts) {
    out.push(`--${boundary}\r\n`);
    write(p, out);
    out.push('\r\n');
  }
  out.push(`--${boundary}--\r\n`);
}

/** The message: top-level header fields (without CRLF) followed by the entity (its own Content-* fields). */
export function serialize(topHeaders: string[], root: Entity): Buffer {
  const out: string[] = [topHeaders.join('\r\n'), '\r\n', 'MIME-Version: 1.0\r\n'];
  write(root, out);
  return Buffer.from(out.join(''), 'utf8');
}
