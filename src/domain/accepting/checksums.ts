// The checksums of an attachment, computed when the message is accepted: attachment content is
// not kept (docs/reference/api-conventions.md, "General rules" 6), so these are what lets a test assert that
// the right file was attached, through Mailpit's API (src/domain/mailpit), which lists MD5, SHA1 and SHA256.
import { createHash } from 'node:crypto';

export interface AttachmentChecksums {
  MD5: string;
  SHA1: string;
  SHA256: string;
}

/** Of the decoded bytes of base64 `content` (already validated by prepareAttachments). */
export function attachmentChecksums(content: string): AttachmentChecksums {
  const bytes = Buffer.from(content, 'base64');
  const hex = (alg: string) => createHash(alg).update(bytes).digest('hex');
  return { MD5: hex('md5'), SHA1: hex('sha1'), SHA256: hex('sha256') };
}
