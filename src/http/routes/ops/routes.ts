// Operations endpoints, outside the API's authentication (docs/operations.md, "Monitoring"):
//   GET /healthz  the process lives and answers (no database access: a liveness probe must not restart a
//                 process because the database is down)
//   GET /readyz   the database is reachable, its schema current, and, in a process that runs the worker
//                 role, its heartbeat fresh; 503 with the failing checks otherwise
//   GET /metrics  Prometheus text; with MAILROOM_METRICS_TOKEN set, only with `Authorization: Bearer <token>`
//   GET /tls/ask  whether a host is a verified custom tracking host (tls-ask.ts), for on-demand TLS
import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../../domain/app-context.js';
import { pendingMigrations } from '../../../infra/db/schema-status.js';
import type { App } from '../../types.js';
import tlsAskRoute from './tls-ask.js';

/** A worker heartbeat older than this is stale (the runner beats every 10 s at most). */
const BEAT_STALE_MS = 45_000;

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export default async function opsRoutes(app: App, ctx: AppContext): Promise<void> {
  await tlsAskRoute(app, ctx);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {};
    try {
      const pending = await pendingMigrations(ctx.database);
      checks.database = 'ok';
      checks.schema = pending.length === 0 ? 'ok' : `pending migrations: ${pending.join(', ')}`;
    } catch (err) {
      checks.database = `unreachable: ${(err as Error).message}`;
    }
    if (ctx.runner.started) {
      const last = ctx.runner.lastBeatAt;
      const age = last === null ? null : ctx.clock.now() - last;
      checks.worker = age !== null && age <= BEAT_STALE_MS ? 'ok' : `heartbeat ${age === null ? 'never written' : `${Math.round(age / 1000)} s old`}`;
    }
    const ok = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  });

  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    const token = ctx.config.metricsToken;
    if (token !== null) {
      const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (!m || !sameToken(m[1], token)) return reply.status(401).header('www-authenticate', 'Bearer').send({ ErrorCode: 10, Message: 'A valid metrics token is required.' });
    }
    const text = await ctx.metrics.registry.metrics();
    return reply.header('content-type', ctx.metrics.registry.contentType).send(text);
  });
}
