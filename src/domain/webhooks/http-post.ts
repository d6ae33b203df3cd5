// One HTTP attempt: POST the body, no redirects followed (a 3xx is a failed attempt), a hard deadline for
// the whole exchange, and connections only to addresses the guard allows (infra/net/address-guard.ts).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AppContext } from '../app-context.js';
import { checkTargetUrl, forbiddenReason, ForbiddenTargetError, guardedLookup } from '../../infra/net/address-guard.js';

export interface PostResult {
  /** HTTP status, or null when no answer came (network failure, timeout, refused target). */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** Retrying cannot help (the address guard refused the target): the notification fails at once. */
  permanent: boolean;
  /** The first bytes of the response body (at most KEEP_BODY, decoded as UTF-8), when an answer came. */
  body?: string;
}

export interface Poster {
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult>;
  close(): void;
}

/** Bytes of a response body kept for the error text; the rest is read and dropped. */
const KEEP_BODY = 512;

/** `credentialsInUrl`: the URL may carry user:password (the inbound hook), sent as HTTP basic auth. */
export function createPoster(ctx: AppContext, maxSocketsPerHost = 8, o: { credentialsInUrl?: boolean } = {}): Poster {
  const lookup = guardedLookup({ resolver: ctx.config.dnsServers ? ctx.dns : null, allowPrivate: () => ctx.config.webhookAllowPrivate });
  const opts = { keepAlive: true, maxSockets: maxSocketsPerHost, lookup };
  const httpAgent = new http.Agent(opts);
  const httpsAgent = new https.Agent(opts);

  return {
    post(url, headers, body, timeoutMs) {
      const started = Date.now();
      const done = (status: number | null, error: string | null, permanent = false, body?: string): PostResult => ({
        status,
        error,
        durationMs: Date.now() - started,
        permanent,
        ...(body === undefined ? {} : { body }),
      });
      // The save-time check again: a row stored before a rule was added must not slip through.
      const refused = checkTargetUrl(url, ctx.config.webhookAllowPrivate, o);
      if (refused) return Promise.resolve(done(null, refused, true));
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return Promise.resolve(done(null, 'invalid URL'));
      }
      // A literal IP is connected to without a lookup, so it is checked here.
      const host = u.hostname.replace(/^\[|\]$/g, '');
      const why = !ctx.config.webhookAllowPrivate && isIP(host) ? forbiddenReason(host) : null;
      if (why) return Promise.resolve(done(null, new ForbiddenTargetError(host, host, why).message, true));
      const mod = u.protocol === 'https:' ? https : http;
      return new Promise<PostResult>((resolve) => {
        let settled = false;
        const finish = (r: PostResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(r);
        };
        let req: http.ClientRequest;
        try {
          req = mod.request(u, {
            method: 'POST',
            agent: u.protocol === 'https:' ? httpsAgent : httpAgent,
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          });
        } catch (err) {
          // A header Node refuses to send (validated at save time; kept for rows written before that).
          return resolve(done(null, (err as Error).message));
        }
        const timer = setTimeout(() => {
          finish(done(null, `timed out after ${timeoutMs} ms`));
          req.destroy();
        }, timeoutMs);
        req.on('error', (err: Error & { code?: string }) => {
          const forbidden = err instanceof ForbiddenTargetError || err.code === 'EWEBHOOKFORBIDDEN';
          finish(done(null, err.message || err.code || 'network error', forbidden));
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (c: Buffer) => {
            if (kept < KEEP_BODY) {
              chunks.push(c);
              kept += c.length;
            }
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8').slice(0, KEEP_BODY);
            finish(done(status, status >= 200 && status < 300 ? null : `HTTP ${status}${text ? `: ${text}` : ''}`, false, text));
          });
          res.on('error', (err) => finish(done(res.statusCode ?? null, err.message)));
        });
        req.end(body);
      });
    },
    /** Drops idle keep-alive sockets; a request in flight finishes on its own socket. */
    close() {
      for (const agent of [httpAgent, httpsAgent]) {
        for (const list of Object.values(agent.freeSockets)) for (const socket of list ?? []) socket.destroy();
      }
    },
  };
}
