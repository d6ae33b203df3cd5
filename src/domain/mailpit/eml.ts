// A message as a whole .eml: the copy delivery stored as sent when there is one (a Live server's under
// MAILROOM_CAPTURE_DIR), else composed as delivery would compose it (delivery/compose.ts) with the attachment
// bytes a Sandbox message keeps. No Bcc is ever composed into it. `fresh`: a new Date and Message-ID, for a
// copy that goes out again (release.ts).
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { composeMime } from '../delivery/compose.js';
import { composeInputOf } from '../delivery/compose-input.js';
import { parseSingleMailbox } from '../../infra/mime/address.js';
import type { MailpitServer } from './filters.js';

/** The message's envelope sender (its From address) and source, or null when it is not the server's. */
export async function emlOf(ctx: AppContext, server: MailpitServer, id: string, o: { fresh?: number } = {}): Promise<{ from: string; raw: Buffer } | null> {
  let q = ctx.db.selectFrom('messages').selectAll().where('id', '=', id).where('server_id', '=', server.id);
  if (server.sandbox) q = q.where('sandbox', '=', 1);
  const row = await q.executeTakeFirst();
  if (!row) return null;
  let from = row.from_email;
  try {
    from = parseSingleMailbox(row.from_raw).address || from;
  } catch {
    // The stored From was checked at accept time; from_email is its address.
  }
  if (row.mime && o.fresh === undefined) return { from, raw: Buffer.from(row.mime, 'utf8') };
  const [recipients, files] = await Promise.all([
    ctx.db.selectFrom('message_recipients').select(['kind', 'email', 'name']).where('message_id', '=', id).orderBy('id').execute(),
    ctx.db.selectFrom('message_attachments').select(['name', 'content_type', 'content_id', 'content']).where('message_id', '=', id).orderBy('position').execute(),
  ]);
  const input = composeInputOf(
    ctx,
    row,
    recipients,
    files.map((f) => ({ name: f.name, contentType: f.content_type, contentId: f.content_id, content: f.content })),
  );
  if (o.fresh !== undefined) {
    input.date = new Date(o.fresh);
    input.messageIdHeader = `<${randomUUID()}@${ctx.config.returnPathDomain}>`;
  }
  return { from, raw: composeMime(input, true) };
}
