// The single place where failures become HTTP answers. Every non-2xx body is {ErrorCode, Message}.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode, httpStatusFor, ServiceBusy } from '../domain/errors.js';
import type { App } from './types.js';

/** ErrorCode for an unexpected failure (not in the published catalogue; the body carries a request id). */
export const INTERNAL_ERROR_CODE = 1;

function describeValidation(err: FastifyError): string {
  const v = err.validation?.[0];
  if (!v) return err.message;
  const where = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const ctx = err.validationContext === 'body' ? '' : `${err.validationContext} `;
  const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
  if (missing) return `The ${ctx}field '${where ? `${where}.` : ''}${missing}' is required.`;
  return `The ${ctx}field '${where || err.validationContext}' ${v.message ?? 'is invalid'}.`;
}

/**
 * What is wrong with a validated query string or path, or null. Ajv's type coercion turns "Infinity" and
 * "1e400" into Infinity and then skips minimum/maximum (they only look at finite numbers), and values past
 * 2^53 lose their digits; PostgreSQL refuses a NUL in text. Such values can name nothing and filter nothing.
 */
function hostileInput(where: 'querystring' | 'path', values: unknown): string | null {
  if (!values || typeof values !== 'object') return null;
  const o = values as Record<string, unknown>;
  for (const k in o) {
    if (k.includes('\u0000')) return `A ${where} key contains a NUL character.`;
    const v = o[k];
    for (const x of Array.isArray(v) ? v : [v]) {
      if (typeof x === 'string' && x.includes('\u0000')) return `The ${where} field '${k}' contains a NUL character.`;
      if (typeof x === 'number' && (!Number.isFinite(x) || Math.abs(x) > Number.MAX_SAFE_INTEGER)) {
        return `The ${where} field '${k}' must be an integer between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`;
      }
    }
  }
  return null;
}

/**
 * A non-finite number among a body object's own fields: Ajv coerces "1e309" in an integer field to Infinity
 * and skips its bounds. Top level only: schema-validated bodies keep their numbers there, and a batch (an
 * array) is left to judge each of its messages on its own.
 */
function nonFiniteField(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const o = body as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'number' && !Number.isFinite(x)) return `The field '${k}' must be a finite number.`;
  }
  return null;
}

/** Fastify's router failures (undecodable URL, path parameter over maxParamLength), as {ErrorCode, Message}. */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.status(414).send({ ErrorCode: ErrorCode.InvalidRequestFields, Message: 'A path parameter of the request URL is too long.' });
    return;
  }
  reply.status(400).send({ ErrorCode: ErrorCode.InvalidRequestFields, Message: 'The request URL is malformed.' });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (bad request line, invalid header, header
 * section too large, timeouts): answered like every other failure, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message =
    status === 408 ? 'The request took too long to arrive.' : status === 431 ? 'The request headers are too large.' : 'The request is not valid HTTP.';
  const body = JSON.stringify({ ErrorCode: ErrorCode.InvalidRequestFields, Message: message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * During a SIGTERM drain (app.close()), requests that still arrive (on a kept-alive connection, or whose
 * headers were under way when the listener closed) are refused with 503 {ErrorCode: 100, Message} and
 * Connection: close, so that the client retries on another instance; requests already in flight finish.
 * Fastify's own refusal (return503OnClosing, turned off in app.ts) answers a body of another shape.
 * Registered before the token check: a refused request touches no database.
 */
export function registerDrainRefusal(app: App): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onRequest', (_req, reply, done) => {
    if (!draining) return done();
    reply.header('connection', 'close');
    done(new ApiError(ErrorCode.Maintenance, 'The service is shutting down; send the request again (to another instance).'));
  });
  // A request in flight when the drain began is answered with Connection: close too: its kept-alive
  // connection would otherwise hold the close open for the idle timeout.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
}

export function registerErrorHandling(app: App): void {
  // After validation (and Ajv's coercion), before any handler: token routes only, since the public pages
  // (tracking, unsubscribe, confirmation) answer every link themselves and touch the database only for a
  // signed token. A callback hook: it runs on every request.
  app.addHook('preHandler', (req, _reply, done) => {
    const auth = req.routeOptions.config?.auth;
    if (auth === 'server' || auth === 'account') {
      const problem = hostileInput('querystring', req.query) ?? hostileInput('path', req.params) ?? nonFiniteField(req.body);
      if (problem) return done(new ApiError(req.routeOptions.config?.validationErrorCode ?? ErrorCode.InvalidRequestFields, problem));
    }
    done();
  });

  app.setErrorHandler((err: FastifyError & Partial<ApiError>, req, reply) => {
    if (err instanceof ServiceBusy) {
      // A pause, not a refusal: the client sends the same request again after Retry-After (RFC 9110 15.6.4).
      reply.header('retry-after', String(err.retryAfter));
      return reply.status(503).send({ ErrorCode: err.errorCode, Message: err.message });
    }
    if (err instanceof ApiError) {
      if (err.retryAfter !== undefined) reply.header('retry-after', String(err.retryAfter));
      return reply.status(err.status ?? httpStatusFor(err.errorCode)).send({ ErrorCode: err.errorCode, Message: err.message, ...err.extra });
    }
    if (err.validation) {
      const code = req.routeOptions.config?.validationErrorCode ?? ErrorCode.InvalidRequestFields;
      return reply.status(422).send({ ErrorCode: code, Message: describeValidation(err) });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ ErrorCode: ErrorCode.InvalidEmailRequest, Message: 'The request body is too large.' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(415).send({ ErrorCode: ErrorCode.JsonRequired, Message: 'Send a JSON body with Content-Type: application/json.' });
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply.status(422).send({ ErrorCode: ErrorCode.InvalidJson, Message: 'The request body is not valid JSON.' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.status(400).send({ ErrorCode: ErrorCode.InvalidJson, Message: 'Content-Length does not match the body.' });
      case 'FST_ERR_BAD_URL':
        return reply.status(400).send({ ErrorCode: ErrorCode.InvalidRequestFields, Message: 'The request URL is malformed.' });
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(err.statusCode).send({ ErrorCode: ErrorCode.InvalidRequestFields, Message: err.message });
    }
    req.log.error({ err }, 'unexpected error');
    return reply
      .status(500)
      .send({ ErrorCode: INTERNAL_ERROR_CODE, Message: `Internal server error. Request id: ${req.id}` });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ ErrorCode: ErrorCode.NotFound, Message: `No route for ${req.method} ${req.url.split('?')[0]}.` });
  });
}
