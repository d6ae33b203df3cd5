// Mailpit's v1 REST API over one server's messages, under <public URL>/mailpit: clients such as
// the npm package mailpit-api, cypress-mailpit and Python's mailpit-api-client call /mailpit/api/v1/... and
// /mailpit/view/{ID}.html with HTTP Basic authentication (any user name, a server token as the password;
// domain/mailpit/access.ts). Its own scope: the API's token headers and {ErrorCode, Message} errors do not
// apply here; answers are Mailpit's, field for field, status for status (its server/apiv1 handlers).
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError, httpStatusFor } from '../../../domain/errors.js';
import { mailpitAccess } from '../../../domain/mailpit/access.js';
import { deleteMatching, deleteMessages, listMessages } from '../../../domain/mailpit/listing.js';
import { parseQuery, QueryError } from '../../../domain/mailpit/query.js';
import { setRead, setReadMatching } from '../../../domain/mailpit/read-state.js';
import { SendError } from '../../../domain/mailpit/send.js';
import { ReleaseError } from '../../../domain/mailpit/release.js';
import { allTags, deleteTag, renameTag, setTags, TagError } from '../../../domain/mailpit/tags.js';
import { TokenResolver } from '../../../domain/tokens/token-resolver.js';
import { requestSignal } from '../../request-signal.js';
import type { App } from '../../types.js';
import { registerMailpitCheckRoutes } from './checks.js';
import { infoOf, webUiOf } from './info.js';
import { registerMessageRoutes } from './message-routes.js';
import { MailpitRefusal, notFound, objectBody, ok, paging, queryOf, serverOf, stringList } from './request.js';

const REALM = 'Basic realm="mailroom Mailpit API", charset="UTF-8"';

export default async function mailpitRoutes(app: App, ctx: AppContext): Promise<void> {
  const tokens = new TokenResolver(ctx.db);
  await app.register(
    async (scope) => {
      const s = scope as unknown as App;
      s.decorateRequest('mailpitServer', null);
      // Mailpit's handlers decode their bodies themselves (an absent body is no body): the text is kept.
      s.removeAllContentTypeParsers();
      // Bodies are small JSON (the app's 1 MB limit); send carries attachments (POST /email's, message-routes.ts).
      s.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
      s.addHook('onRequest', async (req, reply) => {
        // Mailpit's web UI is at its root: a browser opening /mailpit/ is sent to the console's inbox (signing in
        // there), not asked for the API's Basic credentials.
        if (req.method === 'GET' && /^\/mailpit\/?(\?|$)/.test(req.url) && (req.headers.accept ?? '').includes('text/html')) {
          return reply.redirect('/console/inbox', 302);
        }
        const access = await mailpitAccess(ctx, tokens, req.headers.authorization);
        if (access.ok) {
          req.mailpitServer = access.server;
          return;
        }
        if (access.status === 401) reply.header('www-authenticate', REALM);
        return reply.status(access.status).type('text/plain').send(`${access.message}\n`);
      });
      // A NUL can name no message, tag or search term, and PostgreSQL refuses it in text: refused before a query
      // (the API's routes do this in their schema validation, src/http/errors.ts; these routes have none).
      s.addHook('preHandler', async (req) => {
        if (hasNul(req.params) || hasNul(req.query)) throw new MailpitRefusal(400, 'Error: the request URL contains a NUL character');
      });
      s.addHook('onSend', (_req, reply, payload, done) => {
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
        done(null, payload);
      });
      s.setNotFoundHandler((_req, reply) => notFound(reply));
      s.setErrorHandler((err, req, reply) => {
        if (err instanceof MailpitRefusal) {
          if (err.json) return reply.status(err.status).type('application/json').send({ Error: err.message });
          return reply.status(err.status).type('text/plain').send(err.message);
        }
        if (err instanceof QueryError || err instanceof TagError || err instanceof ReleaseError) return reply.status(400).type('text/plain').send(err.message);
        // A search that ran past its time limit (503, naming the limit), as Mailpit answers its errors: text.
        if (err instanceof ApiError) return reply.status(err.status ?? httpStatusFor(err.errorCode)).type('text/plain').send(err.message);
        if (err instanceof SendError) return reply.status(400).type('application/json').send({ Error: err.message });
        const status = (err as { statusCode?: number }).statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500) return reply.status(status).type('text/plain').send((err as Error).message);
        req.log.error({ err }, 'mailpit api error');
        return reply.status(500).type('text/plain').send(`Internal error (request id ${req.id}).`);
      });

      s.get('/api/v1/info', async (req) => infoOf(ctx, serverOf(req)));
      s.get('/api/v1/webui', async (req) => webUiOf(ctx, serverOf(req)));

      s.get('/api/v1/messages', async (req, reply) => listMessages(ctx, serverOf(req), { ...paging(queryOf(req)), signal: requestSignal(reply) }));
      s.put('/api/v1/messages', async (req, reply) => {
        const server = serverOf(req);
        const b = objectBody(req);
        const ids = stringList(b.IDs, 'IDs');
        const search = typeof b.Search === 'string' ? b.Search.trim() : '';
        const read = b.Read === true;
        if (ids.length > 0 && search !== '') throw new MailpitRefusal(400, 'You may specify either IDs or a search query, not both');
        if (search !== '') await setReadMatching(ctx, server, parseQuery(search, queryOf(req).tz), read);
        else if (ids.length === 0) await setReadMatching(ctx, server, [], read);
        else await setRead(ctx, server, ids, read);
        return ok(reply);
      });
      s.delete('/api/v1/messages', async (req, reply) => {
        const server = serverOf(req);
        // As Mailpit: a body that does not decode, or names no IDs, deletes every message.
        let ids: string[] = [];
        try {
          ids = stringList(objectBody(req, false).IDs, 'IDs');
        } catch {
          ids = [];
        }
        if (ids.length === 0) await deleteMatching(ctx, server, []);
        else await deleteMessages(ctx, server, ids);
        return ok(reply);
      });

      s.get('/api/v1/search', async (req, reply) => {
        const q = queryOf(req);
        const search = (q.query ?? '').trim();
        if (search === '') throw new MailpitRefusal(400, 'Error: no search query');
        return listMessages(ctx, serverOf(req), { ...paging(q), signal: requestSignal(reply) }, parseQuery(search, q.tz));
      });
      s.delete('/api/v1/search', async (req, reply) => {
        const q = queryOf(req);
        const search = (q.query ?? '').trim();
        if (search === '') throw new MailpitRefusal(400, 'Error: no search query');
        const terms = parseQuery(search, q.tz);
        // A query of nothing but separators has no terms: it would match every message; Mailpit's does too,
        // but a delete of everything is asked for by DELETE /messages, not by accident here.
        if (terms.length === 0) throw new MailpitRefusal(400, 'Error: the search query has no terms');
        await deleteMatching(ctx, serverOf(req), terms);
        return ok(reply);
      });

      s.get('/api/v1/tags', async (req) => allTags(ctx, serverOf(req)));
      s.put('/api/v1/tags', async (req, reply) => {
        const b = objectBody(req);
        const ids = stringList(b.IDs, 'IDs');
        if (b.Tags !== undefined && b.Tags !== null && !Array.isArray(b.Tags)) throw new MailpitRefusal(400, 'Tags must be an array of strings');
        if (ids.length > 0) await setTags(ctx, serverOf(req), ids, (b.Tags as unknown[] | undefined) ?? []);
        return ok(reply);
      });
      s.put<{ Params: { tag: string } }>('/api/v1/tags/:tag', async (req, reply) => {
        const b = objectBody(req);
        await renameTag(ctx, serverOf(req), req.params.tag, typeof b.Name === 'string' ? b.Name : '');
        return ok(reply);
      });
      s.delete<{ Params: { tag: string } }>('/api/v1/tags/:tag', async (req, reply) => {
        await deleteTag(ctx, serverOf(req), req.params.tag);
        return ok(reply);
      });

      registerMessageRoutes(s, ctx);

      // Mailpit's html-check, link-check and sa-check (domain/message-checks), for the server authenticated above.
      registerMailpitCheckRoutes(s, { ctx, serverFor: async (req) => serverOf(req) });
    },
    { prefix: '/mailpit' },
  );
}

/** A NUL in any key or (string or list) value of a parsed path or query. */
function hasNul(values: unknown): boolean {
  if (!values || typeof values !== 'object') return false;
  for (const [k, v] of Object.entries(values as Record<string, unknown>)) {
    if (k.includes('\u0000')) return true;
    for (const x of Array.isArray(v) ? v : [v]) if (typeof x === 'string' && x.includes('\u0000')) return true;
  }
  return false;
}
