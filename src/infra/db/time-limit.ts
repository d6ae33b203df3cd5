// A time limit on the statements of one read (a search, a list), and their end when the request that asked
// went away.
//
// PostgreSQL: the statements run in a read-only transaction with `SET LOCAL statement_timeout`; an abort
// cancels the statement under way with pg_cancel_backend on the transaction's backend (a second pooled
// connection sends it), so a search whose client left does not run on, on a leader and its parallel workers.
//
// SQLite: the build that better-sqlite3 bundles has no progress handler and the driver exposes no
// sqlite3_interrupt. Every SELECT of the read gets a condition calling `mailroom_within_limit(deadline)`, a
// function registered on the connection (registerTimeLimitFunction) that throws once the deadline passed: the
// statement stops at the next row it considers. A single row's own cost is bounded elsewhere: substrings of 3
// characters or more are answered by the trigram index, shorter ones are linear in the text.
// A database in a file runs the read on its reader threads (sqlite-reader-pool.ts), each connection with the
// same function, so the event loop is not held meanwhile, and an abort stops the statement under way (its
// thread is replaced). An in-memory database cannot be shared with another thread: its reads run on the
// main connection, and hold the event loop up to the limit.
import {
  AndNode,
  FunctionNode,
  OperationNodeTransformer,
  ValueNode,
  WhereNode,
  sql,
  Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type SelectQueryNode,
  type UnknownRow,
} from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Dialect } from './dialect-tag.js';
import { ReadStopped, type SqliteReaderPool } from './sqlite-reader-pool.js';
import { SqliteReaderDialect } from './sqlite-reader-dialect.js';
import type { Database } from './schema.js';

export interface TimeLimitOptions {
  /** Milliseconds every statement may run (PostgreSQL: each; SQLite: the read as a whole). */
  limitMs: number;
  /** Aborted when the request that asked went away. */
  signal?: AbortSignal;
  /** SQLite in a file: the reader threads that run the read (database.ts builds them). */
  readers?: SqliteReaderPool;
}

/** A statement ran past its time limit and was stopped. */
export class TimeLimitExceeded extends Error {
  constructor(readonly limitMs: number) {
    super(`The query ran past its time limit of ${limitMs} ms and was stopped.`);
    this.name = 'TimeLimitExceeded';
  }
}

/** The request went away; its statement was stopped. Nobody is left to answer. */
export class ReadAborted extends Error {
  constructor() {
    super('The request went away; its query was stopped.');
    this.name = 'ReadAborted';
  }
}

export const DEADLINE_FUNCTION = 'mailroom_within_limit';
const FUNCTION = DEADLINE_FUNCTION;

/** Registers the deadline check on a SQLite connection (openDatabase). */
export function registerTimeLimitFunction(db: SQLite.Database): void {
  db.function(FUNCTION, { deterministic: false }, (deadline: unknown) => {
    if (Date.now() >= Number(deadline)) throw new TimeLimitExceeded(-1);
    return 1;
  });
}

/** Adds `mailroom_within_limit(deadline)` to the WHERE of every SELECT of a query, subqueries included. */
class DeadlineTransformer extends OperationNodeTransformer {
  constructor(private readonly deadline: number) {
    super();
  }

  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    const out = super.transformSelectQuery(node);
    if (!out.from) return out;
    const check = FunctionNode.create(FUNCTION, [ValueNode.create(this.deadline)]);
    const where = out.where ? WhereNode.create(AndNode.create(out.where.where, check)) : WhereNode.create(check);
    return { ...out, where };
  }
}

class DeadlinePlugin implements KyselyPlugin {
  constructor(private readonly deadline: number) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return new DeadlineTransformer(this.deadline).transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const isStatementTimeout = (err: unknown) => (err as { code?: string } | null)?.code === '57014';

async function postgresLimited<T>(db: Kysely<Database>, o: TimeLimitOptions, run: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (o.signal?.aborted) throw new ReadAborted();
  let pid: number | null = null;
  let cancelled = false;
  const cancel = () => {
    cancelled = true;
    if (pid !== null) void sql`select pg_cancel_backend(${pid})`.execute(db).catch(() => {});
  };
  o.signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.floor(o.limitMs)))}, true)`.execute(trx);
        pid = Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid);
        if (cancelled) throw new ReadAborted();
        return run(trx);
      });
  } catch (err) {
    if (cancelled) throw new ReadAborted();
    if (isStatementTimeout(err)) throw new TimeLimitExceeded(o.limitMs);
    throw err;
  } finally {
    o.signal?.removeEventListener('abort', cancel);
  }
}

async function sqliteLimited<T>(db: Kysely<Database>, o: TimeLimitOptions, run: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (o.signal?.aborted) throw new ReadAborted();
  const deadline = Date.now() + o.limitMs;
  // A read inside a transaction must see that transaction's writes: it stays on its connection.
  const threaded = o.readers && !db.isTransaction ? new Kysely<Database>({ dialect: new SqliteReaderDialect(o.readers, { deadline, signal: o.signal }) }) : db;
  try {
    return await run(threaded.withPlugin(new DeadlinePlugin(deadline)));
  } catch (err) {
    if (err instanceof TimeLimitExceeded) throw new TimeLimitExceeded(o.limitMs);
    if (err instanceof ReadStopped) throw err.reason === 'deadline' ? new TimeLimitExceeded(o.limitMs) : new ReadAborted();
    throw err;
  }
}

export function runTimeLimited<T>(dialect: Dialect, db: Kysely<Database>, o: TimeLimitOptions, run: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return dialect === 'postgres' ? postgresLimited(db, o, run) : sqliteLimited(db, o, run);
}
