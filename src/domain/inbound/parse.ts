// Inbound mail parsed with postal-mime under explicit limits. A message it cannot read (MIME nested past
// MAX_MIME_DEPTH, a header section past MAX_HEADER_BYTES, ...) reads the same on every retry: it is an
// UnreadableMessage, which the listener answers with a permanent 554 5.6.0 (RFC 3463: media error) and logs
// once at warn, instead of a 451 that makes the sender retry it for days.
import PostalMime, { type Email } from '../../infra/mime/postal-mime.js';

/** Deeper than any real message (mail clients nest 3-5 levels); postal-mime's own limit is 256. */
export const MAX_MIME_DEPTH = 64;
/** The header fields of all parts together (postal-mime's own limit is 2 MiB; Postfix keeps 100 KB of a
 * message's header, header_size_limit). A real message's are a few KB, one with a thousand parts ~200 KB. */
export const MAX_HEADER_BYTES = 512 * 1024;

export class UnreadableMessage extends Error {}

export async function parseInbound(raw: Buffer): Promise<Email> {
  try {
    return await PostalMime.parse(raw, { attachmentEncoding: 'base64', maxNestingDepth: MAX_MIME_DEPTH, maxHeadersSize: MAX_HEADER_BYTES });
  } catch (err) {
    throw new UnreadableMessage(`The message could not be parsed as MIME: ${(err as Error).message}`);
  }
}
