// The program of a SQLite reader thread (sqlite-reader-pool.ts): one read-only connection to the database
// file, which in WAL mode reads beside the main connection's writes (https://www.sqlite.org/wal.html), and one
// statement at a time. Plain CommonJS evaluated in the worker, as sqlite-durability.ts does: it needs only
// better-sqlite3, so a thread starts in milliseconds from dist/ and from TypeScript sources alike.
//
// The deadline function is the one the main connection has (time-limit.ts, registerTimeLimitFunction): the
// read-limited queries carry `mailroom_within_limit(deadline)` in every SELECT, and the thread stops the
// statement at the first row considered after the deadline, exactly as the main connection would.

/** The messages between the pool and a reader thread. */
export interface ReadRequest {
  id: number;
  sql: string;
  params: readonly unknown[];
}

export type ReadReply =
  | { id: number; rows: Record<string, unknown>[] }
  | { id: number; error: { name: string; message: string; code?: string; deadline: boolean } };

export const READER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 10000');
class DeadlinePassed extends Error {}
db.function(workerData.deadlineFunction, { deterministic: false }, (deadline) => {
  if (Date.now() >= Number(deadline)) throw new DeadlinePassed('the read passed its deadline');
  return 1;
});
// The search functions of the main connection (text-functions.ts), from their source: the same code.
for (const f of workerData.functions) db.function(f.name, { deterministic: true }, (0, eval)('(' + f.source + ')'));
// Prepared statements kept by SQL text (bounded), as the main connection does (database.ts).
const cache = new Map();
function prepared(sql) {
  let st = cache.get(sql);
  if (!st) {
    if (cache.size >= 500) cache.clear();
    st = db.prepare(sql);
    cache.set(sql, st);
  }
  return st;
}
// A Buffer parameter arrives as a Uint8Array (structured clone); better-sqlite3 binds Buffers.
const param = (p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p);
parentPort.on('message', (m) => {
  try {
    const st = prepared(m.sql);
    if (!st.reader) throw new Error('a reader thread runs only statements that return rows');
    parentPort.postMessage({ id: m.id, rows: st.all(m.params.map(param)) });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort.postMessage({ id: m.id, error: { name: e.name, message: e.message, code: typeof e.code === 'string' ? e.code : undefined, deadline: e instanceof DeadlinePassed } });
  }
});
`;
