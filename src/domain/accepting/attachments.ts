// Attachments (docs/reference/sending.md, "Attachments"; docs/reference/api-conventions.md, "Limits"): base64
// content that must decode, a name whose extensions are not on the forbidden list, a MIME type and an optional
// Content-ID for inline `cid:` parts.
import { isComposite, parseContentType } from '../../infra/mime/content-type.js';
import { ApiError, ErrorCode } from '../errors.js';
import { attachmentChecksums } from './checksums.js';
import { FORBIDDEN_EXTENSIONS, MAX_ATTACHMENT_NAME, MAX_ATTACHMENTS, MAX_CONTENT_ID, MAX_CONTENT_TYPE } from './limits.js';
import type { PreparedAttachment } from './types.js';

const bad = (msg: string) => new ApiError(ErrorCode.InvalidEmailRequest, msg);
// RFC 4648 section 4 alphabet, padding only at the end; whitespace (MIME line breaks) is removed first. A
// character class, not a repeated group: a group would backtrack (and overflow the stack) on 10 MB of text.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (s: string) => s.length % 4 === 0 && BASE64.test(s);
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The extensions a recipient's system may act on. Windows drops trailing dots and spaces from file names,
 * so they are dropped here too; every dot-separated part after the first is checked, so that neither
 * `invoice.pdf.exe` nor `setup.exe.txt` (a double extension meant to mislead) gets through.
 */
export function forbiddenExtension(name: string): string | null {
  // Counted from the end: /[.\s]+$/ would reread a long run of dots and blanks from each of its positions.
  let end = name.length;
  while (end > 0 && (name[end - 1] === '.' || /\s/.test(name[end - 1]!))) end--;
  const cleaned = name.slice(0, end);
  const parts = cleaned.split('.').slice(1);
  for (const p of parts) {
    const ext = p.trim().toLowerCase();
    if (FORBIDDEN_EXTENSIONS.has(ext)) return ext;
  }
  return null;
}

function decodedSize(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

export function prepareAttachments(value: unknown): PreparedAttachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("The field 'Attachments' must be an array.");
  if (value.length > MAX_ATTACHMENTS) throw bad(`At most ${MAX_ATTACHMENTS} attachments per message.`);
  return value.map((a: unknown, i) => {
    const where = `Attachments[${i}]`;
    if (a === null || typeof a !== 'object' || Array.isArray(a)) throw bad(`'${where}' must be an object with Name, Content and ContentType.`);
    const { Name, Content, ContentType, ContentID } = a as Record<string, unknown>;
    if (typeof Name !== 'string' || Name.trim() === '') throw bad(`'${where}.Name' is required.`);
    if (Name.length > MAX_ATTACHMENT_NAME) throw bad(`'${where}.Name' is longer than ${MAX_ATTACHMENT_NAME} characters.`);
    if (CONTROL.test(Name)) throw bad(`'${where}.Name' contains control characters.`);
    const ext = forbiddenExtension(Name);
    if (ext) throw new ApiError(ErrorCode.ForbiddenAttachmentType, `Attachment '${Name}' has a forbidden file type (.${ext}).`);
    if (typeof Content !== 'string') throw bad(`'${where}.Content' is required (base64).`);
    // Content without line breaks (what clients send) is checked in one pass; the whitespace removal, a second
    // pass and a copy of up to 50 MB, only when that fails.
    let content = Content;
    if (!isBase64(content)) {
      content = Content.replace(/[\r\n\t ]+/g, '');
      if (!isBase64(content)) throw bad(`'${where}.Content' is not valid base64.`);
    }
    let contentType = 'application/octet-stream';
    if (ContentType !== undefined && ContentType !== null) {
      if (typeof ContentType !== 'string') throw bad(`'${where}.ContentType' must be a string.`);
      if (ContentType.length > MAX_CONTENT_TYPE || CONTROL.test(ContentType)) throw bad(`'${where}.ContentType' is not a MIME type (type/subtype).`);
      const ct = parseContentType(ContentType);
      if (typeof ct === 'string') throw bad(`'${where}.ContentType' ${ct}.`);
      if (isComposite(ct)) {
        throw new ApiError(
          ErrorCode.ForbiddenAttachmentType,
          `Attachment '${Name}' has the composite type ${ct.type}/${ct.subtype}: an attachment is sent base64-encoded, which RFC 2045 6.4 forbids for multipart and message types. Send the file as application/octet-stream.`,
        );
      }
      contentType = ContentType.trim();
    }
    let contentId: string | null = null;
    if (ContentID !== undefined && ContentID !== null && ContentID !== '') {
      if (typeof ContentID !== 'string') throw bad(`'${where}.ContentID' must be a string.`);
      const id = ContentID.trim().replace(/^cid:/i, '').replace(/^<(.*)>$/, '$1');
      // RFC 2392: the id is an addr-spec-like token; no spaces, brackets or control characters.
      if (id === '' || id.length > MAX_CONTENT_ID || /[\s<>"\u0000-\u001f\u007f]/.test(id)) throw bad(`'${where}.ContentID' is not a valid content id (cid:...).`);
      contentId = id;
    }
    return { name: Name, contentType, contentId, content, size: decodedSize(content), checksums: attachmentChecksums(content) };
  });
}
