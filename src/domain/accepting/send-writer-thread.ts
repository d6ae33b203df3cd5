// The sending path's writer thread (entry of a worker_threads Worker started by send-writer.ts): it owns a
// connection of its own to the SQLite file (WAL mode, synchronous=FULL) and writes each group of send
// requests in one transaction, the database checks included (commit-units.ts), so that the inserts, the
// COMMIT with its fsync and SQLite's automatic checkpoints run beside the event loop instead of on it. It
// answers a group only after COMMIT returned, i.e. after SQLite fsynced the WAL: the main thread then answers
// the requests, so a 200 still means "on disk" (kill -9 or a power cut loses nothing answered).
//
// The protocol (one group at a time; the main thread never sends the next before the answer):
//   in:  { id, units: SendUnit[], now }          out: { id, results: WireResult[] } | { id, failure: WireError }
import { parentPort, workerData } from 'node:worker_threads';
import { CompiledQuery } from 'kysely';
import type { Config } from '../../infra/config-types.js';
import { openDatabase } from '../../infra/db/database.js';
import { ApiError } from '../errors.js';
import { commitUnits } from './commit-units.js';
import type { SendUnit, UnitResult } from './send-unit.js';
import type { StoreContext } from './store.js';
import { toWireResult, type WireError } from './send-writer-wire.js';

interface Request {
  id: number;
  units: SendUnit[];
  now: number;
}

const { config } = workerData as { config: Config };
const database = openDatabase(config.databaseUrl);
let groupNow = 0;
// The group's time comes from the main thread (its clock may be a test's injected one).
const ctx: StoreContext = { config, dialect: 'sqlite', clock: { now: () => groupNow } as StoreContext['clock'] };
const BEGIN = CompiledQuery.raw('BEGIN IMMEDIATE');
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');

async function write(units: SendUnit[], now: number): Promise<UnitResult[]> {
  groupNow = now;
  return database.db.connection().execute(async (conn) => {
    await conn.executeQuery(BEGIN);
    try {
      const results = await commitUnits(conn, ctx, units, now);
      await conn.executeQuery(COMMIT); // synchronous=FULL: the WAL is fsynced before this returns
      return results;
    } catch (err) {
      await conn.executeQuery(ROLLBACK).catch(() => undefined);
      throw err;
    }
  });
}

function wireError(err: unknown): WireError {
  const e = err as { message?: unknown; code?: unknown };
  if (err instanceof ApiError) return { message: err.message, apiError: { errorCode: err.errorCode, status: err.status, extra: err.extra } };
  return { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined };
}

parentPort!.on('message', (m: Request | 'close') => {
  if (m === 'close') {
    void database.close().then(() => parentPort!.close());
    return;
  }
  write(m.units, m.now).then(
    (results) => parentPort!.postMessage({ id: m.id, results: results.map(toWireResult) }),
    (err: unknown) => parentPort!.postMessage({ id: m.id, failure: wireError(err) }),
  );
});
