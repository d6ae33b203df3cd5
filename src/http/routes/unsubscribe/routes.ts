// Public unsubscribe links (RFC 8058). GET shows a confirmation page and changes nothing (link scanners and
// prefetchers follow GET links); POST unsubscribes: a mail client's one-click request
// (body `List-Unsubscribe=One-Click`, form-encoded or multipart) or the page's form. Both answer 200 when the
// address is already unsubscribed; a forged token gets 404 and changes nothing, and so does another account's
// token on a customer's tracking host (http/tracking-host.ts).
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import type { App } from '../../types.js';
import { servesTrackingLink } from '../../tracking-host.js';
import { applyUnsubscribe } from '../../../domain/streams/unsubscribe.js';
import { readUnsubscribeToken } from '../../../domain/streams/unsubscribe-token.js';
import { confirmPage, donePage, invalidPage, PAGE_HEADERS } from './page.js';

const Params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 1000 }) });
const schema = { tags: ['unsubscribe'], params: Params };

const wantsHtml = (req: FastifyRequest) => String(req.headers.accept ?? '').includes('text/html');

function invalid(req: FastifyRequest, reply: FastifyReply) {
  if (req.method === 'GET' || wantsHtml(req)) return reply.status(404).headers(PAGE_HEADERS).send(invalidPage());
  throw new ApiError(ErrorCode.NotFound, 'This unsubscribe link is not valid.', 404);
}

export default async function unsubscribeRoutes(app: App, ctx: AppContext): Promise<void> {
  // Encapsulated: only these routes read non-JSON bodies. The one-click body carries nothing we need
  // (RFC 8058 section 3.1 fixes its content), so any content type is read, bounded, and ignored.
  await app.register(async (pub: App) => {
    pub.removeAllContentTypeParsers();
    pub.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, _body, done) => done(null, undefined));

    pub.get('/unsubscribe/:token', { config: { auth: 'none' }, schema }, async (req, reply) => {
      const claim = readUnsubscribeToken(ctx, req.params.token);
      if (!claim || !(await servesTrackingLink(ctx, req, claim.messageId))) return invalid(req, reply);
      return reply.headers(PAGE_HEADERS).send(confirmPage(claim.recipient));
    });

    pub.post('/unsubscribe/:token', { config: { auth: 'none' }, schema }, async (req, reply) => {
      const claim = readUnsubscribeToken(ctx, req.params.token);
      if (!claim || !(await servesTrackingLink(ctx, req, claim.messageId))) return invalid(req, reply);
      const outcome = await applyUnsubscribe(ctx, claim);
      if (wantsHtml(req)) return reply.headers(PAGE_HEADERS).send(donePage(claim.recipient));
      return { ErrorCode: 0, Message: outcome === 'already' ? 'Already unsubscribed.' : 'Unsubscribed.' };
    });
  });
}
