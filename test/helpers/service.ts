// A whole mailroom for one test: real database, real HTTP listener on loopback, the worker's runner and
// scheduler registered but driven by the test (runUntilIdle / start), and a clock the test controls.
import { upload } from './http-upload.js';
import { bootstrap } from '../../src/domain/accounts/bootstrap.js';
import { loadConfig, type Config } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { migrateToLatest } from '../../src/infra/db/migrate.js';
import type { DbOptions } from '../../src/infra/db/database.js';
import { buildApp } from '../../src/http/app.js';
import type { App } from '../../src/http/types.js';
import { createLogger, type Logger } from '../../src/infra/logger.js';
import { registerWorkers } from '../../src/worker.js';
import { TestClock } from './clock.js';
import { createTestDatabase } from './database.js';

export const ACCOUNT_TOKEN = 'test-account-token-0000000000000001';
export const SERVER_TOKEN = 'test-server-token-00000000000000001';

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is, with Content-Type application/json unless headers say otherwise). */
  raw?: string | Buffer;
  /** Server token to send; null sends none. Default: the bootstrap server token. */
  token?: string | null;
  /** Send this account token instead of a server token. */
  accountToken?: string;
  headers?: Record<string, string>;
}

export interface TestService {
  ctx: AppContext;
  app: App;
  config: Config;
  clock: TestClock;
  url: string;
  accountId: number;
  serverId: number;
  serverToken: string;
  accountToken: string;
  request<T = any>(method: string, path: string, o?: RequestOptions): Promise<TestResponse<T>>;
  /** Runs every due job (delivery, webhooks, ...) until the queue is idle. */
  drain(): Promise<number>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  env?: Record<string, string>;
  /** Start the worker loops (runner and scheduler) instead of driving them by hand. */
  startWorker?: boolean;
  /** The service's logger (default: one at MAILROOM_TEST_LOG_LEVEL, silent). */
  logger?: Logger;
  /** Database options over the test database's (e.g. readLimitMs). */
  dbOptions?: DbOptions;
  /** Config fields set over what loadConfig reads from `env`: the fixed ports (mxPort 25, mtaStsPort 443)
   * that delivery tests point at loopback servers are not settings, so they come in here. */
  config?: Partial<Config>;
  /** A test database that never held rows (database.ts, `pristine`). */
  pristineDatabase?: boolean;
}

export async function startService(o: ServiceOptions = {}): Promise<TestService> {
  const tdb = await createTestDatabase({ migrated: true, pristine: o.pristineDatabase });
  const config: Config = {
    ...loadConfig({
      MAILROOM_DATABASE_URL: tdb.url,
      MAILROOM_PORT: '0',
      MAILROOM_LOG_LEVEL: process.env.MAILROOM_TEST_LOG_LEVEL ?? 'silent',
      MAILROOM_ACCOUNT_TOKEN: ACCOUNT_TOKEN,
      MAILROOM_SERVER_TOKEN: SERVER_TOKEN,
      MAILROOM_INBOUND_SMTP_PORT: '0',
      ...o.env,
    }),
    ...o.config,
  };
  const clock = new TestClock();
  const ctx = createContext(config, {
    clock,
    logger: o.logger ?? createLogger(config.logLevel),
    dbOptions: { ...tdb.options, ...o.dbOptions },
    secretKey: 'test-secret-key-test-secret-key-0123456789',
  });
  await migrateToLatest(ctx.database);
  await bootstrap(ctx.database, config, clock.now());
  const stops = await registerWorkers(ctx);
  if (o.startWorker) {
    ctx.runner.start();
    ctx.scheduler.start();
  }
  const app = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const url = `${config.httpTls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const server = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').limit(1).executeTakeFirstOrThrow();

  return {
    ctx,
    app,
    config,
    clock,
    url,
    accountId: server.account_id,
    serverId: server.id,
    serverToken: SERVER_TOKEN,
    accountToken: ACCOUNT_TOKEN,
    async request(method, path, ro = {}) {
      const headers: Record<string, string> = { accept: 'application/json', ...ro.headers };
      if (ro.accountToken) headers['x-service-account-token'] = ro.accountToken;
      else if (ro.token !== null) headers['x-service-server-token'] = ro.token ?? SERVER_TOKEN;
      let body: string | Buffer | undefined;
      if (ro.raw !== undefined) body = ro.raw;
      else if (ro.body !== undefined) body = JSON.stringify(ro.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      // Bodies over 1 MB go through node:http, which reads an answer the server gives before the upload ends
      // (http-upload.ts); fetch for the rest.
      const res =
        body !== undefined && Buffer.byteLength(body) > 1024 * 1024
          ? await upload(url + path, method, headers, body)
          : await fetch(url + path, { method, headers, body: body as BodyInit | undefined });
      const text = 'text' in res && typeof res.text === 'string' ? res.text : await (res as Response).text();
      let parsed: any = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    drain: () => ctx.runner.runUntilIdle(),
    async close() {
      await app.close();
      for (const s of stops) await s();
      await ctx.close();
      await tdb.drop();
    },
  };
}
