// One message through Mailpit's API: its summary (which marks it read, as Mailpit's does), headers, raw
// source, parts (a Sandbox message's attachments; a Live message's content is gone once sent), the HTML and
// text views, release through the operator's relay (domain/mailpit/release.ts), and chaos, which mailroom answers with a reason. `latest`
// stands for the newest message, of a search when ?query= is given. Plus send, through the accepting path.
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../domain/app-context.js';
import type { MailpitServer } from '../../../domain/mailpit/filters.js';
import { latestId } from '../../../domain/mailpit/listing.js';
import { parseQuery } from '../../../domain/mailpit/query.js';
import { setRead } from '../../../domain/mailpit/read-state.js';
import { sendMessage } from '../../../domain/mailpit/send.js';
import { releaseMessage } from '../../../domain/mailpit/release.js';
import { headerMap, loadMessages, messageSummary, type LoadedMessage } from '../../../domain/mailpit/view.js';
import { MAX_SINGLE_REQUEST_BYTES } from '../../../domain/accepting/limits.js';
import { attachmentBytes, contentDisposition, partPosition } from '../../../domain/mailpit/attachment-part.js';
import type { App } from '../../types.js';
import { jsonBody, MailpitRefusal, notFound, objectBody, ok, queryOf, serverOf, stringList, type Query } from './request.js';

/** The message `id` of the server (`latest`: the newest, of ?query= when given), or null. */
export async function findMessage(ctx: AppContext, server: MailpitServer, id: string, q: Query = {}): Promise<LoadedMessage | null> {
  let target: string | null = id;
  if (id.toLowerCase() === 'latest') target = await latestId(ctx, server, q.query?.trim() ? parseQuery(q.query, q.tz) : []);
  if (!target) return null;
  const [m] = await loadMessages(ctx, server, [target]);
  return m ?? null;
}

// The HTML view is the sender's markup on mailroom's origin: no script runs (sandbox), nothing is sent
// anywhere but images, no form is submitted.
const VIEW_CSP = "default-src 'none'; style-src 'unsafe-inline' https: http:; img-src data: https: http:; font-src data: https: http:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox";

const LATEST_MISSING = 'Message not found';

export function registerMessageRoutes(s: App, ctx: AppContext): void {
  const load = async (req: { params: { id: string }; query: unknown }, reply: FastifyReply, server: MailpitServer, missing = '404 page not found') => {
    const m = await findMessage(ctx, server, req.params.id, (req.query ?? {}) as Query);
    if (!m) void notFound(reply, req.params.id.toLowerCase() === 'latest' ? LATEST_MISSING : missing);
    return m;
  };

  s.get<{ Params: { id: string } }>('/api/v1/message/:id', async (req, reply) => {
    const server = serverOf(req);
    const m = await load(req, reply, server);
    if (!m) return reply;
    await setRead(ctx, server, [m.row.id], true);
    return messageSummary(ctx, m);
  });

  s.get<{ Params: { id: string } }>('/api/v1/message/:id/headers', async (req, reply) => {
    const m = await load(req, reply, serverOf(req));
    return m ? headerMap(m.raw) : reply;
  });

  s.get<{ Params: { id: string } }>('/api/v1/message/:id/raw', async (req, reply) => {
    const m = await load(req, reply, serverOf(req));
    if (!m) return reply;
    reply.type('text/plain; charset=utf-8');
    if (queryOf(req).dl === '1') reply.header('content-disposition', `attachment; filename="${m.row.id}.eml"`);
    return m.raw;
  });

  // A part's bytes (a Sandbox message keeps them for its retention). The sender chose name and type: the
  // answer is a download, sandboxed and never sniffed, whatever the type says.
  const part = async (req: { params: { id: string; part: string }; query: unknown }, reply: FastifyReply, server: MailpitServer, thumb: boolean) => {
    const m = await load(req, reply, server);
    if (!m) return reply;
    const position = partPosition(req.params.part);
    const found = position === null ? null : await attachmentBytes(ctx.db, m.row.id, position);
    if (found === null) return notFound(reply, `part ${req.params.part} not found`);
    if (found === 'gone') {
      return notFound(
        reply,
        `Attachment content is not stored: a Live server's message keeps each attachment's name, type, size and checksums (MD5, SHA1, SHA256 in the message summary), not its bytes, once it was sent, so part ${req.params.part} cannot be downloaded. A Sandbox server's messages keep them.`,
      );
    }
    // Mailpit makes a thumbnail of an image only; mailroom answers with the image itself (no image library).
    if (thumb && !found.contentType.startsWith('image/')) return notFound(reply, `part ${req.params.part} is not an image`);
    reply.header('content-security-policy', "default-src 'none'; sandbox");
    reply.header('content-disposition', contentDisposition(thumb ? 'inline' : 'attachment', found.name));
    return reply.type(found.contentType).send(found.content);
  };
  s.get<{ Params: { id: string; part: string } }>('/api/v1/message/:id/part/:part', async (req, reply) => part(req, reply, serverOf(req), false));
  s.get<{ Params: { id: string; part: string } }>('/api/v1/message/:id/part/:part/thumb', async (req, reply) => part(req, reply, serverOf(req), true));

  s.post<{ Params: { id: string } }>('/api/v1/message/:id/release', async (req, reply) => {
    const server = serverOf(req);
    const m = await load(req, reply, server);
    if (!m) return reply;
    const to = stringList(objectBody(req).To, 'To');
    if (!(await releaseMessage(ctx, server, m.row.id, to))) return notFound(reply);
    return ok(reply);
  });

  const chaos = 'Chaos is not enabled: mailroom does not inject SMTP failures. Send to the bounce-testing domain (e.g. hardbounce@bounce-testing.postmarkapp.com) to test failures.';
  s.get('/api/v1/chaos', async () => {
    throw new MailpitRefusal(400, chaos);
  });
  s.put('/api/v1/chaos', async () => {
    throw new MailpitRefusal(400, chaos);
  });

  s.post('/api/v1/send', { bodyLimit: MAX_SINGLE_REQUEST_BYTES }, async (req, reply) => {
    const body = jsonBody(req, true);
    return reply.type('application/json').send(await sendMessage(ctx, serverOf(req), body));
  });

  s.get<{ Params: { file: string } }>('/view/:file', async (req, reply) => {
    const file = req.params.file;
    const html = file.endsWith('.html');
    if (!html && !file.endsWith('.txt')) return notFound(reply);
    const id = file.slice(0, file.lastIndexOf('.'));
    const server = serverOf(req);
    const m = await findMessage(ctx, server, id, queryOf(req));
    if (!m) return notFound(reply, id.toLowerCase() === 'latest' ? LATEST_MISSING : 'Message not found');
    // Mailpit's views read the message as its summary does: it is marked read.
    await setRead(ctx, server, [m.row.id], true);
    if (!html) return reply.type('text/plain; charset=utf-8').send(m.row.text_body ?? '');
    if (!m.row.html_body) return notFound(reply, 'This message does not contain a HTML part');
    return reply.type('text/html; charset=utf-8').header('content-security-policy', VIEW_CSP).send(m.row.html_body);
  });
}
