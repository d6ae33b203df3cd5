// What the domain, the edges (http/, smtp-listeners/) and the worker's handlers receive: the shared parts of one
// process. Declared here, below its users, and built by the composition root (src/context.ts, createContext),
// so that nothing below the root imports the root (docs/architecture.md, "Layers"). Each part is typed by
// what infra/ or an area declares; a module that needs only a few parts may ask for
// `Pick<AppContext, 'db' | 'clock'>`. A part whose type belongs to an area is added to this interface by that
// area (TypeScript's declaration merging, as Fastify's decorators are typed), so that this file, which every
// area imports, imports none of them: `sendBatcher` by accepting/send-unit.ts, `smtpPool` by
// delivery/smtp-pool.ts.
import type { Resolver } from 'node:dns/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../infra/clock.js';
import type { Config } from '../infra/config-types.js';
import type { Secrets } from '../infra/crypto/secrets.js';
import type { Db } from '../infra/db/database.js';
import type { Database } from '../infra/db/schema.js';
import type { JobRunner } from '../infra/jobs/runner.js';
import type { Scheduler } from '../infra/jobs/scheduler.js';
import type { Logger } from '../infra/logger.js';
import type { Metrics } from '../infra/metrics.js';
import type { ThreadPool } from '../infra/threads/pool.js';

export interface AppContext {
  config: Config;
  database: Db;
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  secrets: Secrets;
  /** DNS for MX lookups and verification; MAILROOM_DNS_SERVERS when set, else the system's. */
  dns: Resolver;
  /** Runs queued jobs when this process has the worker role; API processes only wake() it. */
  runner: JobRunner;
  scheduler: Scheduler;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: Metrics;
  /** Worker threads that parse and authenticate SMTP mail and inline templates' CSS off the event loop (infra/threads/pool.ts). */
  threads: ThreadPool;
  /** Ports the listeners bound (set when they start; useful when configured with port 0). */
  ports: { inboundSmtp: number | null };
  close(): Promise<void>;
}
