// Public tracking endpoints (no token: mail clients call them). They answer fast and never fail loudly: the
// pixel is always a pixel, whatever the token; a click redirects only for a valid signed token, so the
// endpoint can never be used to send people to a place the message did not link to (no open redirect).
// HEAD requests (link scanners, prefetchers) get the same answer but record nothing. On a customer's tracking
// host only the links of that customer's mail answer (http/tracking-host.ts); another's answer 404 there.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../domain/app-context.js';
import type { App } from '../../types.js';
import { servesTrackingLink } from '../../tracking-host.js';
import { recordClick, recordOpen } from '../../../domain/tracking/record-hit.js';
import { CLICK_PATH, OPEN_PATH, readClickToken, readOpenToken } from '../../../domain/tracking/tokens.js';

/** The smallest transparent 1x1 GIF (43 bytes). */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const BROKEN_LINK_PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Link not valid</title></head>' +
  '<body><h1>This link is not valid</h1><p>The link you followed is broken or incomplete. ' +
  'Copy the whole address from the email and try again.</p></body></html>';

const noStore = (reply: FastifyReply) =>
  reply.header('cache-control', 'no-store, no-cache, must-revalidate, max-age=0').header('pragma', 'no-cache').header('referrer-policy', 'no-referrer');

export default async function trackingRoutes(app: App, ctx: AppContext): Promise<void> {
  const schema = { hide: true };

  const opts = { config: { auth: 'none' as const }, schema };
  const token = (req: FastifyRequest) => (req.params as Record<string, string | undefined>)['*'] ?? '';

  const pixel = async (req: FastifyRequest, reply: FastifyReply) => {
    const t = readOpenToken(ctx, token(req));
    if (t && !(await servesTrackingLink(ctx, req, t.messageId))) return noStore(reply).code(404).type('text/plain').send('Not found.');
    if (t && req.method === 'GET') {
      try {
        await recordOpen(ctx, t, String(req.headers['user-agent'] ?? ''));
      } catch (err) {
        req.log.warn({ err, messageId: t.messageId }, 'could not record an open');
      }
    }
    return noStore(reply).type('image/gif').send(PIXEL);
  };

  const click = async (req: FastifyRequest, reply: FastifyReply) => {
    const t = readClickToken(ctx, token(req));
    if (!t || !(await servesTrackingLink(ctx, req, t.messageId))) return noStore(reply).code(404).type('text/html; charset=utf-8').send(BROKEN_LINK_PAGE);
    if (req.method === 'GET') {
      try {
        await recordClick(ctx, t, String(req.headers['user-agent'] ?? ''));
      } catch (err) {
        // The reader still gets where they wanted to go; only the record is lost.
        req.log.warn({ err, messageId: t.messageId }, 'could not record a click');
      }
    }
    return noStore(reply).redirect(t.link, 302);
  };

  // The bare prefixes too, so that an emptied token still gets its pixel or its page.
  app.get(`${OPEN_PATH}*`, opts, pixel);
  app.get(OPEN_PATH.slice(0, -1), opts, pixel);
  app.get(`${CLICK_PATH}*`, opts, click);
  app.get(CLICK_PATH.slice(0, -1), opts, click);
}
