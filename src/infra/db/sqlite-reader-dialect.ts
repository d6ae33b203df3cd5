// A Kysely dialect whose statements run on the SQLite reader threads (sqlite-reader-pool.ts): Kysely compiles
// as for SQLite, and the connection posts the SQL and its parameters to a thread instead of running them on
// the event loop. Made for one read (time-limit.ts): it carries that read's deadline and abort signal.
//
// Only statements that return rows run there; a transaction would need one thread held across the awaits
// of its statements, and no read-limited path uses one, so it is refused rather than emulated.
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import type { ReadOptions, SqliteReaderPool } from './sqlite-reader-pool.js';

class ReaderConnection implements DatabaseConnection {
  constructor(
    private readonly pool: SqliteReaderPool,
    private readonly o: ReadOptions,
  ) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.pool.query(q.sql, q.parameters, this.o)) as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the database reader threads do not stream');
  }
}

class ReaderDriver implements Driver {
  private readonly connection: ReaderConnection;
  constructor(pool: SqliteReaderPool, o: ReadOptions) {
    // One connection object for all: each statement takes whichever thread is free, so the statements of one
    // read that Promise.all runs together run in parallel.
    this.connection = new ReaderConnection(pool, o);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  beginTransaction(): Promise<void> {
    return Promise.reject(new Error('the database reader threads run single statements, not transactions'));
  }
  commitTransaction(): Promise<void> {
    return this.beginTransaction();
  }
  rollbackTransaction(): Promise<void> {
    return Promise.resolve();
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

export class SqliteReaderDialect implements Dialect {
  constructor(
    private readonly pool: SqliteReaderPool,
    private readonly o: ReadOptions,
  ) {}
  createDriver(): Driver {
    return new ReaderDriver(this.pool, this.o);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
