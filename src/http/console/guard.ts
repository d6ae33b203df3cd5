// Who is asking, and may they: the session behind the cookie, the CSRF token of every change, the role, and
// the server named in the path (only servers of the user's account exist for them).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/app-context.js';
import { resolveSession, type Session } from '../../domain/console-users/sessions.js';

export const COOKIE = 'mailroom_session';

export class ConsoleRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function cookieValue(req: FastifyRequest): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Set-Cookie for a session: HttpOnly (no script reads it), SameSite=Lax, Secure when the console is served over https. */
export function sessionCookie(ctx: AppContext, value: string, maxAgeSeconds: number): string {
  const secure = ctx.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export async function sessionOf(ctx: AppContext, req: FastifyRequest): Promise<Session | null> {
  const v = cookieValue(req);
  return v ? resolveSession(ctx.db, v, ctx.clock.now()) : null;
}

/** The signed-in session, or a redirect to /login (pages) / 401 (live data). */
export async function requireSession(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): Promise<Session | null> {
  const s = await sessionOf(ctx, req);
  if (s) return s;
  if (req.method === 'GET' && !req.url.includes('/live')) {
    void reply.redirect(`/login?next=${encodeURIComponent(req.url)}`, 303);
  } else {
    void reply.status(401).type('text/plain').send('Signed out.');
  }
  return null;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Every change: the form's _csrf must be the session's token (a page of another site cannot read it), and
 * only admins change anything. Checked on the server whatever the page showed.
 */
export function checkChange(session: Session, body: unknown, o: { adminOnly?: boolean } = {}): void {
  const token = body && typeof body === 'object' ? (body as Record<string, unknown>)._csrf : undefined;
  if (typeof token !== 'string' || !sameToken(token, session.csrfToken)) throw new ConsoleRefusal(403, 'This form has expired or did not come from this console (CSRF token missing or wrong). Reload the page and try again.');
  if (o.adminOnly !== false && session.user.role !== 'admin') throw new ConsoleRefusal(403, 'Viewers can look at everything but change nothing. Ask an admin.');
}

export interface ServerRef {
  id: number;
  name: string;
  delivery_type: string;
}

export async function serversOf(ctx: AppContext, session: Session): Promise<ServerRef[]> {
  return ctx.db.selectFrom('servers').select(['id', 'name', 'delivery_type']).where('account_id', '=', session.user.accountId).orderBy('id').execute();
}

export async function requireServer(ctx: AppContext, session: Session, idText: string): Promise<ServerRef> {
  const id = Number(idText);
  if (!Number.isSafeInteger(id) || id <= 0 || id > 2 ** 31 - 1) throw new ConsoleRefusal(404, 'No such server.');
  const s = await ctx.db.selectFrom('servers').select(['id', 'name', 'delivery_type']).where('id', '=', id).where('account_id', '=', session.user.accountId).executeTakeFirst();
  if (!s) throw new ConsoleRefusal(404, 'No such server.');
  return s;
}

export function formString(body: unknown, key: string): string {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : '';
}
