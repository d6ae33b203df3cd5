// One attachment of a message, downloaded from the console: a Sandbox message keeps its attachments for its
// retention (a Live message's content is gone once sent). The name and type are the sender's: the answer is
// always a download (Content-Disposition attachment, sandboxed, never sniffed), never a page of this origin.
import type { AppContext } from '../../../domain/app-context.js';
import { attachmentBytes, contentDisposition } from '../../../domain/mailpit/attachment-part.js';
import { ConsoleRefusal } from '../guard.js';
import type { ConsoleRouter } from '../router.js';

export function registerMessageAttachment(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/messages/:mid/attachments/:pos', async (c) => {
    const position = /^\d{1,6}$/.test(c.params.pos ?? '') ? Number(c.params.pos) : -1;
    const m = await ctx.db.selectFrom('messages').select('id').where('id', '=', c.params.mid!).where('server_id', '=', c.server.id).executeTakeFirst();
    const found = m && position >= 0 ? await attachmentBytes(ctx.db, m.id, position) : null;
    if (found === null) throw new ConsoleRefusal(404, 'No such attachment.');
    if (found === 'gone') throw new ConsoleRefusal(404, 'This attachment was sent and its content is not kept; its name, type and size remain.');
    c.reply.header('content-security-policy', "default-src 'none'; sandbox").header('content-disposition', contentDisposition('attachment', found.name));
    c.reply.type(found.contentType).send(found.content);
  });
}
