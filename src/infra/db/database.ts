import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { createRequire } from 'node:module';
import type PgModule from 'pg';
import { isPostgresUrl } from './url.js';
import type { Database } from './schema.js';
import { createSqlDialect, type SqlDialect } from './sql-dialect.js';
import { registerTextFunctions, TEXT_FUNCTIONS } from './text-functions.js';
import { DEADLINE_FUNCTION, registerTimeLimitFunction } from './time-limit.js';
import { SqliteReaderPool } from './sqlite-reader-pool.js';

import type { Dialect } from './dialect-tag.js';

export type { Dialect } from './dialect-tag.js';

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The SQL that differs between the two databases, for the domain's queries (sql-dialect.ts). */
  sql: SqlDialect;
  /** Milliseconds a search or list may run (time-limit.ts). */
  readLimitMs: number;
  /** PostgreSQL: the schema everything lives in. */
  schema?: string;
  close(): Promise<void>;
  /** SQLite in a file: the threads that run searches and lists off the event loop (sqlite-reader-pool.ts). */
  readers?: SqliteReaderPool;
  /** PostgreSQL: the pool's current counters; SQLite: undefined (one connection, no pool). */
  poolStats?: () => PoolStats;
}

export interface DbOptions {
  /** PostgreSQL only: run everything inside this schema (tests use one schema per test context). */
  schema?: string;
  /** PostgreSQL only: pool size. */
  poolSize?: number;
  /** PostgreSQL only: called with the milliseconds each query waited for a pooled connection (metrics). */
  onPoolWait?: (ms: number) => void;
  /** Milliseconds a search or list may run before it is stopped (default READ_LIMIT_MS). */
  readLimitMs?: number;
  /** SQLite in a file: reader threads for searches and lists (default THREADS of sqlite-reader-pool.ts; 0:
   * none, they run on the main connection). */
  readThreads?: number;
}

/**
 * A search or list answers in milliseconds from its indexes; one that runs this long is a pattern no index
 * serves, over a large store. The limit is wall time, so a loaded machine reaches it sooner: it is set well
 * above what any indexed read takes. On SQLite in a file the statement runs on a reader thread; on an
 * in-memory one it holds the event loop meanwhile (better-sqlite3 is synchronous).
 */
export const READ_LIMIT_MS = { sqlite: 5_000, postgres: 5_000 } as const;

/** A PostgreSQL pool's counters, for metrics and `mailroom status`. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

let pgModule: typeof PgModule | null = null;

/**
 * pg, loaded with the first PostgreSQL database: a SQLite deployment never pays for loading it at start.
 * PostgreSQL returns int8 (our epoch-millisecond timestamps, counts and big ids) as strings by default.
 * Every value we store fits in 2^53, so numbers are safe and keep both dialects returning the same types.
 */
function loadPg(): typeof PgModule {
  if (pgModule) return pgModule;
  const pg = createRequire(import.meta.url)('pg') as typeof PgModule;
  pg.types.setTypeParser(20, (v: string) => Number(v));
  pg.types.setTypeParser(1700, (v: string) => Number(v));
  return (pgModule = pg);
}

export function openDatabase(url: string, options: DbOptions = {}): Db {
  if (isPostgresUrl(url)) {
    const pg = loadPg();
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
      // An unreachable server fails a query within seconds instead of hanging on the OS connect timeout.
      connectionTimeoutMillis: 5_000,
    });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const onWait = options.onPoolWait;
    // Kysely takes its connections through pool.connect(); timing it measures the wait for a free connection.
    const timed = onWait
      ? {
          async connect() {
            const t0 = performance.now();
            const client = await pool.connect();
            onWait(performance.now() - t0);
            return client;
          },
          end: () => pool.end(),
        }
      : pool;
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: timed }) });
    // A URL that sets the search path (`?options=-c search_path=x`) puts mailroom in that schema, migration
    // bookkeeping included.
    const fromUrl = /search_path=([a-z_][a-z0-9_]*)/i.exec(decodeURIComponent(new URL(url).searchParams.get('options') ?? ''))?.[1];
    return {
      db,
      dialect: 'postgres',
      sql: createSqlDialect('postgres'),
      readLimitMs: options.readLimitMs ?? READ_LIMIT_MS.postgres,
      schema: options.schema ?? fromUrl ?? 'public',
      close: () => db.destroy(),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  const file = url.replace(/^file:\/\//i, '');
  if (file !== ':memory:') createPrivately(file);
  const sqlite = new SQLite(file);
  // WAL lets readers run beside the single writer. synchronous=FULL makes every commit durable against a
  // crash of the process *and* of the machine; the sending path amortizes the fsync by group commit.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  registerTimeLimitFunction(sqlite);
  registerTextFunctions(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  // Threads start on the first read; an in-memory database is this connection's alone.
  const readers = file === ':memory:' || options.readThreads === 0 ? undefined : new SqliteReaderPool(file, { threads: options.readThreads, deadlineFunction: DEADLINE_FUNCTION, functions: TEXT_FUNCTIONS });
  const close = async () => {
    await readers?.close();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', sql: createSqlDialect('sqlite'), readLimitMs: options.readLimitMs ?? READ_LIMIT_MS.sqlite, readers, close };
}

/**
 * The SQLite file holds message bodies and tokens' hashes: its folder is created 0700 and the file 0600 before
 * SQLite opens it. SQLite gives the -wal and -shm files the database file's permissions.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/**
 * Kysely prepares every query anew; preparing costs about as much as running a small query. Statements are
 * kept by SQL text (bounded). Safe because Kysely's SQLite driver runs one statement at a time.
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return Object.assign(Object.create(sqlite) as SQLite.Database, {
    prepare(source: string) {
      let st = cache.get(source);
      if (!st) {
        if (cache.size >= 2000) cache.clear();
        st = prepare(source);
        cache.set(source, st);
      }
      return st;
    },
    close: () => sqlite.close(),
  });
}
