import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { ServerOptions } from 'node:http';
import type { Server } from 'node:https';
import Fastify, { type FastifyHttpsOptions, type FastifyServerOptions, LogController } from 'fastify';
import type { Config } from '../infra/config-types.js';
import { registerRoutes } from './routes/index.js';
import opsRoutes from './routes/ops/routes.js';
import type { AppContext } from '../domain/app-context.js';
import { registerAuth } from './auth.js';
import { registerTrackingHostGuard } from './tracking-host.js';
import { registerJsonParser } from './body-parser.js';
import { addBodyKeyCanonicalizer } from './body-keys.js';
import { clientErrorHandler, frameworkErrorHandler, registerDrainRefusal, registerErrorHandling } from './errors.js';
import { parseQuery } from './query.js';
import type { App } from './types.js';
import { lazyValidators } from './lazy-validators.js';

/** Default body limit; the sending routes raise it for themselves (10 MB message, 50 MB batch). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The listener's options: Node's own server options, and with MAILROOM_HTTP_TLS_CERT/_KEY the certificate, so
 * the API port speaks HTTPS (Fastify hands `https` instead of `http` to the server it creates).
 */
function serverOptions(config: Config): Pick<FastifyHttpsOptions<Server>, 'https'> | { http: ServerOptions } {
  const http = { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs) };
  if (!config.httpTls) return { http };
  // RFC 8996 deprecates TLS 1.0 and 1.1; every client the API serves speaks 1.2.
  return { https: { ...http, key: config.httpTls.key, cert: config.httpTls.cert, minVersion: 'TLSv1.2' } };
}

/** Builds the HTTP application (no listening): `app.inject()` in unit tests, `listen()` in serve. */
export async function buildApp(ctx: AppContext): Promise<App> {
  const validators = lazyValidators();
  const app = Fastify({
    schemaController: { compilersFactory: { buildValidator: validators.buildValidator, buildSerializer: validators.buildSerializer } },
    loggerInstance: ctx.logger.child({ component: 'http' }),
    // Per-request lines only at debug level: at thousands of sends a second they would dominate the log.
    logController: new LogController({ disableRequestLogging: ctx.config.logLevel !== 'debug' && ctx.config.logLevel !== 'trace' }),
    bodyLimit: DEFAULT_BODY_LIMIT,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 500, querystringParser: parseQuery },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // MAILROOM_TRUSTED_PROXIES: X-Forwarded-For is believed only from these peers, walked right to left past
    // them (proxy-addr), so req.ip is the client for the sign-in limits and the request log alike.
    trustProxy: ctx.config.trustedProxies.length > 0 ? ctx.config.trustedProxies : false,
    ajv: { customOptions: { coerceTypes: 'array', allErrors: false, removeAdditional: false, useDefaults: true } },
    // Router and HTTP-parser refusals answer {ErrorCode, Message} like every other failure (http/errors.ts).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // A request arriving during the drain is refused by registerDrainRefusal (http/errors.ts) with the
    // {ErrorCode, Message} body of every other failure, not by Fastify's own 503 body.
    return503OnClosing: false,
    // A client that never finishes its request (a chunked body that never ends, headers sent a byte at a
    // time) is cut off: MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS for the whole request, _HEADERS_ for the
    // headers, _IDLE_ for a kept-alive connection between requests.
    requestTimeout: ctx.config.http.requestTimeoutMs,
    keepAliveTimeout: ctx.config.http.idleTimeoutMs,
    connectionTimeout: ctx.config.http.requestTimeoutMs + 5_000,
    ...serverOptions(ctx.config),
  } as FastifyServerOptions).withTypeProvider() as unknown as App;

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'mailroom', version: '1.0.0', description: 'Transactional email service API' },
      components: {
        securitySchemes: {
          serverToken: { type: 'apiKey', in: 'header', name: 'X-Service-Server-Token' },
          accountToken: { type: 'apiKey', in: 'header', name: 'X-Service-Account-Token' },
        },
      },
    },
  });
  registerJsonParser(app, ctx.threads);
  // Before any route: each route's body keys are read in any case (body-keys.ts).
  app.addHook('onRoute', addBodyKeyCanonicalizer);
  registerErrorHandling(app);
  registerDrainRefusal(app);
  // Before authentication: on a custom tracking host an API path is a 404, not a 401.
  registerTrackingHostGuard(app, ctx);
  registerAuth(app, ctx);
  // A callback hook, not an async one: it runs on every answer, and an async hook costs a promise and a
  // microtask turn per request.
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });
  // Request duration by route template (not the raw URL: ids would make a series per message).
  const httpDuration = ctx.metrics.httpDuration;
  app.addHook('onResponse', (req, reply, done) => {
    httpDuration.observe({ method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  // The validators not used yet are compiled in the background (lazy-validators.ts) a while after the server
  // listens: not while the rest of the start (the worker role) is still under way and competing for the loop.
  let compileLater: NodeJS.Timeout | undefined;
  let compiled!: () => void;
  const allCompiled = new Promise<void>((resolve) => (compiled = resolve));
  // Resolves once every route's validator is compiled (or the server closed first): a measurement of the
  // service under load waits for it, so that the start's one-off compiling is not counted.
  app.decorate('validatorsCompiled', () => allCompiled);
  app.addHook('onListen', function (done) {
    compileLater = setTimeout(
      () =>
        void validators
          .compilePending()
          .catch((err: unknown) => ctx.logger.error({ err }, 'compiling route schemas'))
          .finally(compiled),
      3_000,
    );
    compileLater.unref();
    done();
  });
  app.addHook('onClose', (_i, done) => {
    clearTimeout(compileLater);
    compiled();
    done();
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await opsRoutes(app, ctx);
  await registerRoutes(app, ctx);
  return app;
}
