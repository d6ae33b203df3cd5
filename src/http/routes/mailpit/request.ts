// What the Mailpit routes share: the authenticated server on the request, Mailpit's paging parameters, its
// error answers (plain text 400 as its httpError, JSON {Error} for send as its httpJSONError, "404 page not
// found"), and the bodies its handlers decode (JSON, an absent body read as none).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MailpitServer } from '../../../domain/mailpit/filters.js';
import { zonedMidnightOrInstant } from '../../../domain/mailpit/dates.js';
import type { Paging } from '../../../domain/mailpit/listing.js';

declare module 'fastify' {
  interface FastifyRequest {
    mailpitServer: MailpitServer | null;
  }
}

export class MailpitRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly json = false,
  ) {
    super(message);
  }
}

export function serverOf(req: FastifyRequest): MailpitServer {
  if (!req.mailpitServer) throw new MailpitRefusal(401, 'Unauthorized.');
  return req.mailpitServer;
}

export type Query = Record<string, string | undefined>;
export const queryOf = (req: FastifyRequest): Query => (req.query ?? {}) as Query;

const int = (v: string | undefined): number | null => (v !== undefined && /^\d{1,9}$/.test(v) ? Number(v) : null);

/** Mailpit's getStartLimit: start >= 0 (default 0), limit >= 0 (default 50), before a date (ignored when unreadable). */
export function paging(q: Query): Paging {
  const before = q.before ? zonedMidnightOrInstant(q.before, q.tz) : null;
  return { start: int(q.start) ?? 0, limit: int(q.limit) ?? 50, ...(before !== null ? { before } : {}) };
}

/** The JSON body as Mailpit's handlers decode it: none (undefined) when empty. */
export function jsonBody(req: FastifyRequest, json = false): unknown {
  const text = typeof req.body === 'string' ? req.body : '';
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MailpitRefusal(400, (err as Error).message, json);
  }
}

/** An object body with the given fields' types checked (Mailpit's struct decoding). */
export function objectBody(req: FastifyRequest, required = true): Record<string, unknown> {
  const b = jsonBody(req);
  if (b === undefined && !required) return {};
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new MailpitRefusal(400, 'the request body must be a JSON object');
  return b as Record<string, unknown>;
}

export function stringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new MailpitRefusal(400, `${field} must be an array of strings`);
  return v as string[];
}

export const ok = (reply: FastifyReply) => reply.type('text/plain').send('ok');
export const notFound = (reply: FastifyReply, text = '404 page not found') => reply.status(404).type('text/plain').send(text);
