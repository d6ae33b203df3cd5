// The web console, served by mailroom itself: server-rendered HTML, one small script, one
// stylesheet, uPlot for charts. Lives under /console (API paths such as /messages and /servers keep their
// meaning), plus /login and /logout; `/` leads to it. Pages call the same domain modules as the API routes.
import type { FastifyError } from 'fastify';
import type { AppContext } from '../../domain/app-context.js';
import { ApiError, httpStatusFor } from '../../domain/errors.js';
import type { App } from '../types.js';
import { registerAssets } from './assets.js';
import { ConsoleRefusal } from './guard.js';
import { html } from './html.js';
import { barePage } from './layout.js';
import { registerLogin } from './login.js';
import { registerActivity } from './pages/activity.js';
import { registerAdmin } from './pages/admin.js';
import { registerBounces } from './pages/bounces.js';
import { registerBulk } from './pages/bulk.js';
import { registerInbound } from './pages/inbound.js';
import { registerInboundMessage } from './pages/inbound-message.js';
import { registerInboundRules } from './pages/inbound-rules.js';
import { registerInboundSettings } from './pages/inbound-settings.js';
import { registerMessage } from './pages/message.js';
import { registerMessageAttachment } from './pages/message-attachment.js';
import { registerStats } from './pages/stats.js';
import { registerDmarc } from './pages/dmarc.js';
import { registerStreams } from './pages/streams.js';
import { registerSuppressions } from './pages/suppressions.js';
import { registerTemplates } from './pages/templates.js';
import { registerWebhooks } from './pages/webhooks.js';
import { ConsoleRouter, redirectWith } from './router.js';
import { crossSiteRefusal } from './same-origin.js';

/**
 * Scripts only from this origin, no inline script or style, no plugins, no framing of the console, forms
 * only back to it; message bodies get a stricter policy of their own (pages/message-body.ts).
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export default async function consoleRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    const s = scope as unknown as App;
    s.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      const text = String(body);
      // PostgreSQL cannot store a NUL in text; refused here so no handler meets one.
      if (/%00|\u0000/.test(text)) return done(new ConsoleRefusal(400, 'The form contains a NUL character.'));
      done(null, Object.fromEntries(new URLSearchParams(text)));
    });
    // Before any body is read or any handler runs: a cross-site POST (sign-in included) changes nothing.
    s.addHook('onRequest', (req, reply, done) => {
      const why = crossSiteRefusal(ctx, req);
      if (!why) return done();
      req.log.warn({ client: req.ip, method: req.method, url: req.url }, 'console: cross-site request refused');
      void reply
        .status(403)
        .type('text/html; charset=utf-8')
        .send(
          barePage(
            'Not allowed',
            html`<p class="error" role="alert">This request was refused because ${why}. The console accepts changes only from its own pages.</p><p><a href="/console">Open the console</a></p>`,
          ),
        );
    });
    s.addHook('onSend', (_req, reply, payload, done) => {
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONSOLE_CSP);
      if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
      reply.header('cross-origin-opener-policy', 'same-origin');
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    s.setErrorHandler((err: FastifyError, req, reply) => {
      let status = 500;
      let message = `Something went wrong (request id ${req.id}).`;
      if (err instanceof ConsoleRefusal) [status, message] = [err.status, err.message];
      else if (err instanceof ApiError) [status, message] = [err.status ?? httpStatusFor(err.errorCode), err.message];
      else if (typeof err.statusCode === 'number' && err.statusCode < 500) [status, message] = [err.statusCode, err.message];
      else req.log.error({ err }, 'console error');
      // A refused action on a page the user came from goes back there with the reason.
      const back = req.headers.referer;
      if (req.method === 'POST' && status < 500 && status !== 403 && back && sameOrigin(back, req.headers.host)) {
        return redirectWith(reply, new URL(back).pathname + new URL(back).search, { error: message });
      }
      return reply
        .status(status)
        .type('text/html; charset=utf-8')
        .send(barePage(status === 403 ? 'Not allowed' : status === 404 ? 'Not found' : 'Error', html`<p class="error" role="alert">${message}</p><p><a href="/console">Back to the console</a></p>`));
    });

    s.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console', 303));
    registerAssets(s);
    registerLogin(s, ctx);
    const r = new ConsoleRouter(s, ctx);
    r.page('/console', async (c) => {
      const first = c.servers[0];
      c.reply.redirect(first ? `/console/s/${first.id}/activity` : c.session.user.role === 'admin' ? '/console/servers' : '/login', 303);
    });
    // The test inbox: the first Sandbox server's Activity (where /mailpit/ in a browser leads, as Mailpit's
    // web UI is at its root), else the first server's.
    r.page('/console/inbox', async (c) => {
      const inbox = c.servers.find((x) => x.delivery_type === 'Sandbox') ?? c.servers[0];
      c.reply.redirect(inbox ? `/console/s/${inbox.id}/activity` : '/console', 303);
    });
    r.page('/console/go', async (c) => {
      const id = Number(c.query.server);
      const page = /^[a-z]+$/.test(c.query.page ?? '') ? c.query.page : 'activity';
      c.reply.redirect(c.servers.some((x) => x.id === id) ? `/console/s/${id}/${page}` : '/console', 303);
    });
    registerActivity(r, ctx);
    registerMessage(r, ctx);
    registerMessageAttachment(r, ctx);
    registerBulk(r, ctx);
    registerInbound(r, ctx);
    registerInboundMessage(r, ctx);
    registerInboundRules(r, ctx);
    registerInboundSettings(r, ctx);
    registerBounces(r, ctx);
    registerSuppressions(r, ctx);
    registerStreams(r, ctx);
    registerTemplates(r, ctx);
    registerWebhooks(r, ctx);
    registerStats(r, ctx);
    registerDmarc(r, ctx);
    registerAdmin(r, ctx);
  });
}

function sameOrigin(url: string, host: string | undefined): boolean {
  try {
    return new URL(url).host === host;
  } catch {
    return false;
  }
}
