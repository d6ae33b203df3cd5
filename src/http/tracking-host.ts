// A verified custom tracking host (links.example.com, CNAMEd to mailroom; domains/tracking-domain.ts) reaches
// this same listener, but it is the sender's name, not mailroom's: there it answers only the links that mail
// carries (open pixel, click redirect, unsubscribe) and the health probes, and 404 for the API, the console
// and everything else, so that a customer's host never serves another account's console or API.
// One onRequest hook, registered before authentication (a 404 there, not a 401). Routing has already
// happened, so the check is on the matched route template, which the router's case-insensitivity and
// trailing-slash tolerance cannot slip past. The hook marks a request to such a host (request.trackingHost),
// and the link routes then serve only the links of mail that carries this host (servesTrackingLink): a
// token is signed for a message, not for a host, and one customer's host must not redirect for another's.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../domain/app-context.js';
import { isTrackingHostOf, verifiedTrackingHosts } from '../domain/domains/tracking-domain.js';
import { ErrorCode } from '../domain/errors.js';
import { CLICK_PATH, OPEN_PATH } from '../domain/tracking/tokens.js';
import type { App } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified custom tracking host the request came to; null on mailroom's own host (and any other). */
    trackingHost: string | null;
  }
}

/** How long the set of verified hosts is trusted; a host verified in another process is seen within this. */
export const TRACKING_HOSTS_TTL_MS = 10_000;

/** The route templates a tracking host serves (http/routes/tracking, unsubscribe, ops). */
const ALLOWED = new Set([`${OPEN_PATH}*`, OPEN_PATH.slice(0, -1), `${CLICK_PATH}*`, CLICK_PATH.slice(0, -1), '/unsubscribe/:token', '/healthz', '/readyz']);

/**
 * The verified hosts, loaded whole (one per domain at most: a small set) and reloaded once stale, by one
 * query shared by the requests that find it stale. A Host header is then a set look-up, whatever a client
 * puts in it: no query per unknown host.
 */
class TrackingHostCache {
  private hosts = new Set<string>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(private readonly ctx: AppContext) {}

  fresh(): boolean {
    return this.ctx.clock.now() - this.loadedAt < TRACKING_HOSTS_TTL_MS;
  }

  has(host: string): boolean {
    return this.hosts.has(host);
  }

  reload(): Promise<void> {
    this.loading ??= verifiedTrackingHosts(this.ctx)
      .then(
        (hosts) => {
          this.hosts = hosts;
          this.loadedAt = this.ctx.clock.now();
        },
        // The database is away: the last known set stays in use (and is asked for again next time).
        (err: unknown) => this.ctx.logger.warn({ err }, 'could not load the verified tracking hosts'),
      )
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}

/** Lowercased host name of the request without port or trailing dot (Host, or X-Forwarded-Host from a trusted proxy). */
function requestHost(req: FastifyRequest): string {
  return req.hostname.toLowerCase().replace(/\.$/, '');
}

/**
 * Whether the link of `messageId` may be served on this request's host: always on mailroom's own host, and on
 * a custom tracking host only for mail whose links carry that host.
 */
export async function servesTrackingLink(ctx: AppContext, req: FastifyRequest, messageId: string): Promise<boolean> {
  return req.trackingHost === null || (await isTrackingHostOf(ctx, req.trackingHost, messageId));
}

export function registerTrackingHostGuard(app: App, ctx: AppContext): void {
  app.decorateRequest('trackingHost', null);
  const cache = new TrackingHostCache(ctx);
  const publicHost = new URL(ctx.config.publicUrl).hostname.toLowerCase();
  const check = (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const host = requestHost(req);
    if (!cache.has(host)) return done();
    if (!ALLOWED.has(req.routeOptions.url ?? '')) {
      reply.status(404).send({ ErrorCode: ErrorCode.NotFound, Message: 'Not found.' });
      return;
    }
    req.trackingHost = host;
    done();
  };
  // A callback hook: the common case (mailroom's own host, or a fresh set) costs no promise.
  app.addHook('onRequest', (req, reply, done) => {
    if (requestHost(req) === publicHost) return done();
    if (cache.fresh()) return check(req, reply, done);
    cache.reload().then(() => check(req, reply, done), done);
  });
}
