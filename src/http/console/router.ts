// How console pages are routed: every page and action gets the session (or a redirect to /login), the
// user's servers, the server named in the path, and a one-time flash message; every action is checked for
// its CSRF token and the admin role before its handler runs.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/app-context.js';
import type { Session } from '../../domain/console-users/sessions.js';
import type { App } from '../types.js';
import { checkChange, requireServer, requireSession, serversOf, type ServerRef } from './guard.js';
import type { PageFrame } from './layout.js';

export interface PageCall {
  req: FastifyRequest;
  reply: FastifyReply;
  session: Session;
  servers: ServerRef[];
  server: ServerRef;
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, string>;
  /** The page frame with the flash message of the previous action. */
  frame(title: string, active?: string): PageFrame;
}

export interface Flash {
  notice?: string;
  error?: string;
}

const FLASH = 'mailroom_flash';

function readFlash(req: FastifyRequest, reply: FastifyReply): Flash {
  const m = /(?:^|;\s*)mailroom_flash=([A-Za-z0-9_-]+)/.exec(req.headers.cookie ?? '');
  if (!m) return {};
  void reply.header('set-cookie', `${FLASH}=; Path=/console; HttpOnly; SameSite=Lax; Max-Age=0`);
  try {
    const f = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Flash;
    return { notice: typeof f.notice === 'string' ? f.notice : undefined, error: typeof f.error === 'string' ? f.error : undefined };
  } catch {
    return {};
  }
}

/** Redirect after an action (POST/redirect/GET), carrying its outcome in a short-lived cookie, not the URL. */
export function redirectWith(reply: FastifyReply, location: string, flash: Flash): FastifyReply {
  const v = Buffer.from(JSON.stringify(flash)).toString('base64url');
  void reply.header('set-cookie', `${FLASH}=${v}; Path=/console; HttpOnly; SameSite=Lax; Max-Age=60`);
  return reply.redirect(location, 303);
}

function strings(o: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) out[k] = Array.isArray(v) ? String(v[v.length - 1]) : String(v ?? '');
  return out;
}

export class ConsoleRouter {
  constructor(
    private readonly app: App,
    private readonly ctx: AppContext,
  ) {}

  private async call(req: FastifyRequest, reply: FastifyReply): Promise<PageCall | null> {
    const session = await requireSession(this.ctx, req, reply);
    if (!session) return null;
    const params = strings(req.params);
    const [servers, server] = await Promise.all([serversOf(this.ctx, session), params.sid ? requireServer(this.ctx, session, params.sid) : Promise.resolve(undefined)]);
    const flash = req.method === 'GET' ? readFlash(req, reply) : {};
    return {
      req,
      reply,
      session,
      servers,
      server: server as ServerRef,
      params,
      query: strings(req.query),
      body: strings(req.body),
      frame: (title, active) => ({ title, session, servers, server, active, ...flash }),
    };
  }

  /** A page: the handler returns the HTML, or answers itself (redirect, JSON) and returns nothing. */
  page(path: string, handler: (c: PageCall) => Promise<string | void>): void {
    this.app.get(path, { schema: { hide: true } }, async (req, reply) => {
      const c = await this.call(req, reply);
      if (!c) return reply;
      const out = await handler(c);
      if (typeof out === 'string') return reply.type('text/html; charset=utf-8').send(out);
      return reply;
    });
  }

  /** An action (POST): CSRF and role checked first; the handler answers (usually redirectWith). */
  action(path: string, handler: (c: PageCall) => Promise<FastifyReply | string>, o: { adminOnly?: boolean; bodyLimit?: number } = {}): void {
    this.app.post(path, { bodyLimit: o.bodyLimit, schema: { hide: true } }, async (req, reply) => {
      const c = await this.call(req, reply);
      if (!c) return reply;
      checkChange(c.session, req.body, o);
      const out = await handler(c);
      if (typeof out === 'string') return reply.type('text/html; charset=utf-8').send(out);
      return out;
    });
  }
}
