// An attachment's bytes, for Mailpit's part download and the console: a Sandbox message keeps its
// attachments' content for its retention (accepting/store.ts); a Live message's content is gone once it was
// handed off (delivery/outcome.ts), and then only the name, type, size and checksums remain.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

export interface AttachmentBytes {
  name: string;
  /** The sender's Content-Type when it is a plain type/subtype, else application/octet-stream. */
  contentType: string;
  content: Buffer;
}

/** Mailpit numbers a message's attachments from 2 (part 1 is the body): PartID n is stored position n - 2. */
export function partPosition(partId: string): number | null {
  if (!/^\d{1,6}$/.test(partId)) return null;
  const n = Number(partId) - 2;
  return n >= 0 ? n : null;
}

// A sender's type goes into a response header: only a token/token form passes, never parameters or controls.
const SAFE_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** The stored attachment at `position` of message `messageId`: null when there is none, 'gone' when its content was not kept. */
export async function attachmentBytes(db: Kysely<Database>, messageId: string, position: number): Promise<AttachmentBytes | 'gone' | null> {
  const row = await db.selectFrom('message_attachments').select(['name', 'content_type', 'content']).where('message_id', '=', messageId).where('position', '=', position).executeTakeFirst();
  if (!row) return null;
  if (row.content === null) return 'gone';
  return { name: row.name, contentType: SAFE_TYPE.test(row.content_type) ? row.content_type.toLowerCase() : 'application/octet-stream', content: Buffer.from(row.content, 'base64') };
}

/** A Content-Disposition naming the sender's file name safely (RFC 6266, RFC 8187's filename*). */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_').slice(0, 200) || 'attachment';
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name.slice(0, 500))}`;
}
