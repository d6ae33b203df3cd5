// The composition root: everything a request handler or a worker needs (the AppContext that
// domain/app-context.ts declares), built once from the config. Nothing below the root imports this file.
// Tests build the same thing with their own database, clock and configuration.
import { Resolver } from 'node:dns/promises';
import type { AppContext } from './domain/app-context.js';
import { type Clock, systemClock } from './infra/clock.js';
import type { Config } from './infra/config-types.js';
import { resolveSecretKey } from './infra/crypto/secret-key.js';
import { createSecrets } from './infra/crypto/secrets.js';
import { type DbOptions, openDatabase } from './infra/db/database.js';
import { JobRunner } from './infra/jobs/runner.js';
import { Scheduler } from './infra/jobs/scheduler.js';
import { createLogger, type Logger } from './infra/logger.js';
import { createMetrics, type Metrics } from './infra/metrics.js';
import { queueStats } from './infra/jobs/stats.js';
import { bulkCounts } from './domain/bulk/counts.js';
import { SendBatcher } from './domain/accepting/send-batcher.js';
import { deliveryOptions } from './domain/delivery/options.js';
import { SmtpPool } from './domain/delivery/smtp-pool.js';
import { cachedResolve } from './infra/dns/cache.js';
import { parserPool } from './infra/threads/parser-pool.js';

export type { AppContext };

export interface ContextOverrides {
  clock?: Clock;
  logger?: Logger;
  dbOptions?: DbOptions;
  secretKey?: string;
  /** Also export Node's process metrics (CPU, memory, event loop); serve turns this on. */
  processMetrics?: boolean;
}

export function createContext(config: Config, o: ContextOverrides = {}): AppContext {
  const logger = o.logger ?? createLogger(config.logLevel);
  const clock = o.clock ?? systemClock;
  let metrics: Metrics | null = null;
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    onPoolWait: (ms) => metrics?.dbPoolWaitSeconds.observe(ms / 1000),
    ...o.dbOptions,
  });
  metrics = createMetrics({ queues: () => queueStats(database, clock.now()), pool: database.poolStats, bulk: () => bulkCounts(database.db) }, o.processMetrics ?? false);
  const secrets = createSecrets(o.secretKey ?? resolveSecretKey(config));
  const dns = new Resolver({ timeout: 3000, tries: 2 });
  if (config.dnsServers) dns.setServers(config.dnsServers.map((s) => (s.host.includes(':') ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`)));
  const runner = new JobRunner({ database, clock, logger });
  const scheduler = new Scheduler(database.db, clock, logger);
  // As many idle sessions per target as jobs may run at once: with fewer, a relay serving every job saw
  // sessions closed on release and opened again (TCP, greeting, EHLO) a moment later.
  const smtpPool = new SmtpPool(deliveryOptions(config), Math.max(32, config.deliveryConcurrency));
  // Parser threads for SMTP mail and templates' CSS (infra/threads); their DNS questions come back to this resolver and cache.
  const threads = parserPool(config, logger, cachedResolve(dns, clock));
  const ctx: Omit<AppContext, 'sendBatcher'> & { sendBatcher?: SendBatcher } = {
    config,
    database,
    db: database.db,
    clock,
    logger,
    secrets,
    dns,
    runner,
    scheduler,
    metrics,
    smtpPool,
    threads,
    ports: { inboundSmtp: null },
    async close() {
      await ctx.sendBatcher?.drain();
      await scheduler.stop();
      await runner.stop();
      smtpPool.close();
      await threads.close();
      await database.close();
    },
  };
  // The batcher writes through the whole context (events, webhooks, statistics), so it comes last.
  ctx.sendBatcher = new SendBatcher(ctx as AppContext);
  return ctx as AppContext;
}
