import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { isPostgresUrl } from './url.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL: the schema everything lives in. */
  schema?: string;
  close(): Promise<void>;
}

export interface DbOptions {
  /** PostgreSQL only: run everything inside this schema (tests use one schema per test context). */
  schema?: string;
  /** PostgreSQL only: pool size. */
  poolSize?: number;
}

// PostgreSQL returns int8 (our epoch-millisecond timestamps, counts and big ids) as strings by default.
// Every value we store fits in 2^53, so numbers are safe and keep both dialects returning the same types.
pg.types.setTypeParser(20, (v: string) => Number(v));
pg.types.setTypeParser(1700, (v: string) => Number(v));

export function openDatabase(url: string, options: DbOptions = {}): Db {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
    });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    // A URL that sets the search path (`?options=-c search_path=x`) puts mailroom in that schema, migration
    // bookkeeping included.
    const fromUrl = /search_path=([a-z_][a-z0-9_]*)/i.exec(decodeURIComponent(new URL(url).searchParams.get('options') ?? ''))?.[1];
    return { db, dialect: 'postgres', schema: options.schema ?? fromUrl ?? 'public', close: () => db.destroy() };
  }
  const file = url.replace(/^file:\/\//i, '');
  if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets readers run beside the single writer. synchronous=FULL makes every commit durable against a
  // crash of the process *and* of the machine; the sending path amortizes the fsync by group commit.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
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
