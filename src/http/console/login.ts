// Sign-in and sign-out. The sign-in form carries no CSRF token (there is no session yet); a cross-site post
// to it (login CSRF) is refused by its Origin / Sec-Fetch-Site (same-origin.ts). Failed attempts are
// limited per address and per client in the database (domain/console-users/sessions.ts, client-limit.ts),
// so the limits hold across processes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/app-context.js';
import { signInFromClient } from '../../domain/console-users/client-limit.js';
import { SESSION_TTL_MS, signOut } from '../../domain/console-users/sessions.js';
import type { App } from '../types.js';
import { cookieValue, sessionCookie, sessionOf } from './guard.js';
import { html } from './html.js';
import { barePage } from './layout.js';

// Pages, not API: kept out of the OpenAPI document.
const HIDDEN = { schema: { hide: true } };

/** Only paths of this console: an open redirect would let a link sign someone in and send them elsewhere. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/console(?:[/?]|$)/.test(next) && !next.includes('//') && !next.includes('\\') ? next : '/console';
}

function form(next: string, email: string, error?: string): string {
  return barePage(
    'Sign in',
    html`${error ? html`<p class="error" role="alert" id="login-error">${error}</p>` : ''}
<form method="post" action="/login" class="stack">
  <input type="hidden" name="next" value="${next}">
  <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}" autofocus>
  <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p class="hint">No account? An operator adds one with <code>mailroom user add EMAIL --role admin|viewer</code>.</p>`,
  );
}

export function registerLogin(app: App, ctx: AppContext): void {
  app.get('/login', HIDDEN, async (req: FastifyRequest, reply: FastifyReply) => {
    const next = safeNext((req.query as Record<string, unknown>).next);
    if (await sessionOf(ctx, req)) return reply.redirect(next, 303);
    return reply.type('text/html; charset=utf-8').send(form(next, ''));
  });

  app.post('/login', HIDDEN, async (req: FastifyRequest, reply: FastifyReply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1000) : '';
    const next = safeNext(body.next);
    // req.ip: the socket's peer, or behind MAILROOM_TRUSTED_PROXIES the client their X-Forwarded-For names.
    const out = await signInFromClient(ctx.db, req.ip, email, password, ctx.clock.now());
    if (out.kind !== 'ok') req.log.info({ client: req.ip, outcome: out.kind }, 'console sign-in refused');
    if (out.kind === 'throttled') return reply.status(429).type('text/html; charset=utf-8').send(form(next, email, 'Too many failed sign-ins for this address or from your network. Wait 15 minutes and try again.'));
    if (out.kind === 'wrong') return reply.status(401).type('text/html; charset=utf-8').send(form(next, email, 'Wrong email or password.'));
    reply.header('set-cookie', sessionCookie(ctx, out.cookieValue, Math.floor(SESSION_TTL_MS / 1000)));
    return reply.redirect(next, 303);
  });

  // Sign-out is a change, so it carries the CSRF token too (a foreign page must not sign people out).
  app.post('/logout', HIDDEN, async (req: FastifyRequest, reply: FastifyReply) => {
    const session = await sessionOf(ctx, req);
    const token = ((req.body ?? {}) as Record<string, unknown>)._csrf;
    if (session && token !== session.csrfToken) return reply.status(403).type('text/html; charset=utf-8').send(barePage('Not allowed', html`<p class="error">CSRF token missing or wrong.</p>`));
    const v = cookieValue(req);
    if (v) await signOut(ctx.db, v);
    reply.header('set-cookie', sessionCookie(ctx, '', 0));
    return reply.redirect('/login', 303);
  });
}
