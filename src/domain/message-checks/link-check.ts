// The link check (Mailpit's GET /api/v1/message/{ID}/link-check): each link's HTTP status. Outbound requests to
// URLs a sender wrote, so they go through the webhooks' address guard (infra/net/address-guard.ts: no private,
// reserved or own addresses unless MAILROOM_WEBHOOK_ALLOW_PRIVATE=true), each redirect hop checked again, and
// are bounded: at most MAX_LINKS links, a few at a time (two per host, as Mailpit), a deadline per request and
// one for the whole check, and a process-wide cap on requests in flight so that calling the check in a loop
// cannot turn the service into a load generator. HEAD first; a server that refuses HEAD (an error status)
// is asked again with GET, whose body is not read.
import http from 'node:http';
import https from 'node:https';
import type { AppContext } from '../app-context.js';
import { checkTargetUrl, ForbiddenTargetError, guardedLookup } from '../../infra/net/address-guard.js';
import { extractLinks, MAX_LINKS } from './link-extract.js';

export interface LinkStatus {
  URL: string;
  StatusCode: number;
  Status: string;
}

export interface LinkCheckResponse {
  Errors: number;
  Links: LinkStatus[];
}

export interface LinkCheckLimits {
  /** One request's deadline (connect to the end of the headers). */
  requestMs: number;
  /** The whole check's deadline; links not checked by then say so. */
  totalMs: number;
  /** Requests of one check in flight at once. */
  concurrency: number;
  maxLinks: number;
  /** Redirects followed (Mailpit: 3). */
  maxRedirects: number;
}

export const LINK_CHECK_LIMITS: LinkCheckLimits = { requestMs: 10_000, totalMs: 30_000, concurrency: 8, maxLinks: MAX_LINKS, maxRedirects: 3 };

/** A counting semaphore; a released slot passes straight to the next waiter, so at most `n` are ever held. */
function semaphore(n: number): () => Promise<() => void> {
  let active = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  return async () => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => queue.push(resolve));
    return release;
  };
}

/** Requests of all link checks of this process in flight at once. */
const processSlot = semaphore(32);

const BLOCKED: LinkStatus = { URL: '', StatusCode: 451, Status: 'Blocked private/reserved address' };

/** Go's error text for the usual network failures (Mailpit reports the last part of Go's error). */
function networkText(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no such host';
    case 'ECONNRESET':
      return 'connection reset by peer';
    case 'EHOSTUNREACH':
      return 'no route to host';
    default:
      return err.message || err.code || 'network error';
  }
}

type Hop = { status: number; location: string | null } | { error: string; blocked?: boolean };

export function createLinkChecker(ctx: Pick<AppContext, 'config' | 'dns'>, limits: LinkCheckLimits = LINK_CHECK_LIMITS) {
  const allowPrivate = () => ctx.config.webhookAllowPrivate;
  const lookup = guardedLookup({ resolver: ctx.config.dnsServers ? ctx.dns : null, allowPrivate });
  const agents = { http: new http.Agent({ lookup }), https: new https.Agent({ lookup }) };

  function request(url: URL, method: 'HEAD' | 'GET', deadline: number): Promise<Hop> {
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const ms = Math.max(1, Math.min(limits.requestMs, deadline - Date.now()));
      const req = mod.request(url, { method, agent: url.protocol === 'https:' ? agents.https : agents.http, headers: { 'user-agent': 'mailroom link check', accept: '*/*' } });
      const timer = setTimeout(() => {
        resolve({ error: 'timeout awaiting response headers' });
        req.destroy();
      }, ms);
      req.on('error', (err: Error & { code?: string }) => {
        clearTimeout(timer);
        if (err instanceof ForbiddenTargetError || err.code === 'EWEBHOOKFORBIDDEN') resolve({ error: err.message, blocked: true });
        else resolve({ error: networkText(err) });
      });
      req.on('response', (res) => {
        clearTimeout(timer);
        const location = typeof res.headers.location === 'string' ? res.headers.location : null;
        resolve({ status: res.statusCode ?? 0, location });
        // The status is all that is wanted: the body (of a GET) is not read.
        res.destroy();
        req.destroy();
      });
      req.end();
    });
  }

  /** One URL: its status after redirects (when following), each hop through the guard. */
  async function status(link: string, follow: boolean, deadline: number): Promise<LinkStatus> {
    let current = link;
    for (let hop = 0; ; hop++) {
      const refused = checkTargetUrl(current, allowPrivate(), { credentialsInUrl: true });
      if (refused) return refused.startsWith('Url points at') ? { ...BLOCKED, URL: link } : { URL: link, StatusCode: 0, Status: 'invalid URL' };
      if (Date.now() >= deadline) return { URL: link, StatusCode: 0, Status: 'not checked: the link check ran out of time' };
      const url = new URL(current);
      let r = await request(url, 'HEAD', deadline);
      if ('status' in r && r.status >= 400) r = await request(url, 'GET', deadline);
      if ('error' in r) return r.blocked ? { ...BLOCKED, URL: link } : { URL: link, StatusCode: 0, Status: r.error };
      const redirect = r.status >= 300 && r.status < 400 && r.location !== null;
      if (!follow || !redirect) return { URL: link, StatusCode: r.status, Status: http.STATUS_CODES[r.status] ?? '' };
      if (hop + 1 >= limits.maxRedirects) return { URL: link, StatusCode: 0, Status: 'too many redirects' };
      try {
        current = new URL(r.location!, url).href;
      } catch {
        return { URL: link, StatusCode: 0, Status: 'invalid redirect URL' };
      }
    }
  }

  return {
    /** Checks the links of a message (its HTML and text parts). */
    async check(html: string, text: string, follow: boolean): Promise<LinkCheckResponse> {
      const links = extractLinks(html, text, limits.maxLinks);
      const deadline = Date.now() + limits.totalMs;
      const checkSlot = semaphore(limits.concurrency);
      const hosts = new Map<string, () => Promise<() => void>>();
      const one = async (link: string): Promise<LinkStatus> => {
        const host = hostOf(link);
        if (!hosts.has(host)) hosts.set(host, semaphore(2));
        const held = [await hosts.get(host)!(), await checkSlot(), await processSlot()];
        try {
          return await status(link, follow, deadline);
        } finally {
          for (const release of held.reverse()) release();
        }
      };
      const results = await Promise.all(links.map(one));
      return { Errors: results.filter((l) => l.StatusCode >= 400 || l.StatusCode === 0).length, Links: results };
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function hostOf(link: string): string {
  try {
    return new URL(link).hostname.toLowerCase();
  } catch {
    return '';
  }
}
