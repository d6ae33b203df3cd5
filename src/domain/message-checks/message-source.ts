// What the checks read of a message: its HTML and text parts, and its MIME source. A message of another server
// is "not found" like a missing one. `latest` (Mailpit's id for the newest message) is the server's newest.
// Through the Mailpit API a Sandbox server shows only its Sandbox messages (`sandboxOnly`, as the Mailpit
// listing does); the console shows every message. The source is the stored as-sent copy (messages.mime) when delivery composed one; a Sandbox message or one
// still queued has none, so it is composed here the way delivery would (delivery/compose.ts), unsigned and
// without attachment content (which is not stored; docs/reference/api-conventions.md, "General rules" 6).
import type { AppContext } from '../app-context.js';
import { composeMime } from '../delivery/compose.js';
import { composeInputOf } from '../delivery/compose-input.js';
import { messageNotFound } from '../messages/details.js';

export interface CheckedMessage {
  id: string;
  html: string;
  text: string;
}

/** Which messages of a server the caller may read: all, or (Mailpit API on a Sandbox server) the Sandbox ones. */
export interface MessageScope {
  serverId: number;
  sandboxOnly?: boolean;
}

function messagesOf(ctx: AppContext, s: MessageScope) {
  const q = ctx.db.selectFrom('messages').where('server_id', '=', s.serverId);
  return s.sandboxOnly ? q.where('sandbox', '=', 1) : q;
}

export async function resolveId(ctx: AppContext, s: MessageScope, id: string): Promise<string> {
  if (id !== 'latest') return id;
  const m = await messagesOf(ctx, s).select('id').orderBy('received_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!m) throw messageNotFound(id);
  return m.id;
}

export async function checkedMessage(ctx: AppContext, scope: MessageScope, idOrLatest: string): Promise<CheckedMessage> {
  const id = await resolveId(ctx, scope, idOrLatest);
  const m = await messagesOf(ctx, scope).select(['id', 'html_body', 'text_body']).where('id', '=', id).executeTakeFirst();
  if (!m) throw messageNotFound(idOrLatest);
  return { id: m.id, html: m.html_body ?? '', text: m.text_body ?? '' };
}

/** The message's MIME source: as sent, or as it would be sent. */
export async function messageSource(ctx: AppContext, scope: MessageScope, idOrLatest: string): Promise<Buffer> {
  return sourceOf(ctx, scope, await resolveId(ctx, scope, idOrLatest), idOrLatest);
}

/** The same for a message named by its MessageID only (the API's GET /messages/outbound/{id}/dump): the
 * source is there as soon as the send is answered, composed until delivery stores the copy as sent. */
export async function messageSourceById(ctx: AppContext, scope: MessageScope, id: string): Promise<Buffer> {
  return sourceOf(ctx, scope, id, id);
}

async function sourceOf(ctx: AppContext, scope: MessageScope, id: string, idOrLatest: string): Promise<Buffer> {
  const m = await messagesOf(ctx, scope)
    .select(['id', 'from_raw', 'reply_to', 'subject', 'html_body', 'text_body', 'headers', 'received_at', 'mime'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!m) throw messageNotFound(idOrLatest);
  if (m.mime) return Buffer.from(m.mime, 'utf8');
  const [recipients, files] = await Promise.all([
    ctx.db.selectFrom('message_recipients').select(['kind', 'email', 'name']).where('message_id', '=', id).orderBy('id').execute(),
    ctx.db.selectFrom('message_attachments').select(['name', 'content_type', 'content_id']).where('message_id', '=', id).orderBy('position').execute(),
  ]);
  const attachments = files.map((f) => ({ name: f.name, contentType: f.content_type, contentId: f.content_id, content: null }));
  return composeMime(composeInputOf(ctx, m, recipients, attachments), false);
}
