// bench/bench-db: the database a benchmark runs on, SQLite (a fresh file) or PostgreSQL (a fresh schema of
// MAILROOM_BENCH_PG_URL, default the test database), so that one run prints both beside each other.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import type { DbOptions } from '../src/infra/db/database.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';

export type BenchDialect = 'sqlite' | 'postgres';

export const BENCH_PG_URL = process.env.MAILROOM_BENCH_PG_URL ?? process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The dialects to run: BENCH_DB (comma-separated), default both. */
export function benchDialects(): BenchDialect[] {
  return (process.env.BENCH_DB ?? 'sqlite,postgres').split(',').filter((d): d is BenchDialect => d === 'sqlite' || d === 'postgres');
}

export interface BenchDatabase {
  /** MAILROOM_DATABASE_URL for loadConfig. */
  url: string;
  /** createContext's dbOptions (the schema on PostgreSQL). */
  dbOptions: DbOptions;
  /** The folder of the SQLite file (made for PostgreSQL too, for the benchmark's own files). */
  dir: string;
  drop(): Promise<void>;
}

/**
 * null when PostgreSQL is asked for and cannot be reached (the benchmark prints it as skipped). The schema is
 * dropped by drop(), and on Ctrl-C too, so an interrupted benchmark leaves nothing behind.
 */
export async function benchDatabase(dialect: BenchDialect, prefix: string, o: { poolSize?: number } = {}): Promise<BenchDatabase | null> {
  const dir = mkdtempSync(join(tmpdir(), `mailroom-bench-${prefix}-`));
  if (dialect === 'sqlite') {
    return { url: join(dir, 'mailroom.db'), dbOptions: {}, dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BENCH_PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  } finally {
    await admin.end().catch(() => undefined);
  }
  const dropSchema = async () => {
    const c = new pg.Client({ connectionString: BENCH_PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  };
  const onInterrupt = () => void dropSchema().finally(() => process.exit(130));
  process.once('SIGINT', onInterrupt);
  return {
    url: BENCH_PG_URL,
    dbOptions: { schema, ...(o.poolSize ? { poolSize: o.poolSize } : {}) },
    dir,
    async drop() {
      process.removeListener('SIGINT', onInterrupt);
      rmSync(dir, { recursive: true, force: true });
      await dropSchema();
    },
  };
}

/**
 * The database as a sender finds it after `mailroom domain add` and a confirmed sender signature: migrated,
 * bootstrapped (the account and server of MAILROOM_*_TOKEN), with `from` confirmed on bench.example.
 */
export async function seedSender(ctx: AppContext, config: Config, from: string): Promise<void> {
  await migrateToLatest(ctx.database);
  await bootstrap(ctx.database, config, Date.now());
  const account = await ctx.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
  const domain = await ctx.db.insertInto('domains').values({ account_id: account.id, name: from.split('@')[1], created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
  await ctx.db.insertInto('sender_signatures').values({ account_id: account.id, domain_id: domain.id, email: from, name: 'Bench', confirmed: 1, created_at: Date.now() }).execute();
}

/** Whether the benchmarks' PostgreSQL answers (within 3 s); a benchmark prints its PostgreSQL row as skipped if not. */
export async function pgReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: BENCH_PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** What a search benchmark stands on: a migrated service context and two servers of one account. */
export interface SearchBench {
  database: BenchDatabase;
  config: Config;
  ctx: AppContext;
  /** The bootstrap's server, whose messages are measured, and a second one sharing the tables. */
  serverId: number;
  otherId: number;
}

/** A fresh database with the service's context, migrated and bootstrapped with `token`, and a second server. */
export async function openSearchBench(dialect: BenchDialect, prefix: string, poolSize: number, token: string): Promise<SearchBench> {
  const database = await benchDatabase(dialect, prefix, { poolSize });
  if (!database) throw new Error('PostgreSQL is not reachable');
  const config = loadConfig({ MAILROOM_DATABASE_URL: database.url, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_SERVER_TOKEN: token });
  const ctx = createContext(config, { dbOptions: database.dbOptions, secretKey: 'bench-secret-key-bench-secret-key-0123456789' });
  try {
    await migrateToLatest(ctx.database);
    await bootstrap(ctx.database, config, Date.now());
    const [server] = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').execute();
    const other = await ctx.db.insertInto('servers').values({ account_id: server!.account_id, name: 'Other', created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
    return { database, config, ctx, serverId: server!.id, otherId: other.id };
  } catch (err) {
    await ctx.close();
    await database.drop();
    throw err;
  }
}
