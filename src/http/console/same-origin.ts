// Cross-site requests may change nothing in the console. A foreign page can make a visitor's browser post
// a form here: to /login (login CSRF: the visitor is signed in to the attacker's account, and what they then
// type lands there) or to any action. Browsers say where a request comes from: `Sec-Fetch-Site` (Fetch
// Metadata) and `Origin` (RFC 6454 7, sent with every cross-origin and every form POST). A request that
// carries neither is not from a browser (curl, scripts) and still has to present the CSRF token of its
// session (guard.ts checkChange); the token is kept for browsers too.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/app-context.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Null when the request may go on; else why it is refused. */
export function crossSiteRefusal(ctx: AppContext, req: FastifyRequest): string | null {
  if (SAFE.has(req.method)) return null;
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== '') {
    // `none`: the user's own doing (typed, bookmarked); `same-origin`: a page of this console.
    return site === 'same-origin' || site === 'none' ? null : `the browser reports it came from another site (Sec-Fetch-Site: ${site.slice(0, 40)})`;
  }
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin === '') return null;
  // This console's origin: the public URL, or the address the request was sent to (the Host, or the
  // X-Forwarded-Host and -Proto of a trusted proxy).
  const allowed = [originOf(ctx.config.publicUrl), originOf(`${req.protocol}://${req.host}`)];
  const given = origin === 'null' ? null : originOf(origin);
  return given !== null && allowed.includes(given) ? null : `it came from another origin (Origin: ${origin.slice(0, 200)})`;
}
