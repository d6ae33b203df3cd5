// The sending path's writer thread (entry of a worker_threads Worker started by send-writer.ts): it owns a
// connection of its own to the SQLite file (WAL mode) and writes each group of send
// requests in one transaction, the database checks included (commit-units.ts), so that the inserts, the
// COMMIT, the fsync and SQLite's automatic checkpoints run beside the event loop instead of on it. It answers
// a group only after the WAL holding its COMMIT was fdatasynced: the main thread then answers the requests,
// so a 200 still means "on disk" (kill -9 or a power cut loses nothing answered).
//
// The fsync is made after COMMIT, not inside it: this connection commits at synchronous=NORMAL (the WAL frames
// reach the OS; SQLite still syncs the WAL before every checkpoint) and then fdatasyncs the WAL itself. So the
// write lock is held only for the inserts, and a write of the main thread's connection (a delivery outcome, a
// job claim), which waits for that lock synchronously on the event loop, never waits for the disk. A crash
// before the fdatasync loses only the unanswered group; WAL frames carry checksums, so a torn tail is dropped
// on recovery.
//
// The protocol (one group at a time; the main thread never sends the next before the answer):
//   in:  { id, units: SendUnit[], now }          out: { id, results: WireResult[] } | { id, failure: WireError }
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { CompiledQuery } from 'kysely';
import type { Config } from '../../infra/config-types.js';
import { openDatabase } from '../../infra/db/database.js';
import { WAL_SAFETY_PAGES } from '../../infra/db/sqlite-durability.js';
import { ApiError } from '../errors.js';
import { commitUnits } from './commit-units.js';
import type { SendUnit, UnitResult } from './send-unit.js';
import type { StoreContext } from './store.js';
import { toWireResult, type WireError } from './send-writer-wire.js';

interface Request {
  id: number;
  units: SendUnit[];
  now: number;
  selfCheckpoint: boolean;
}

const { config } = workerData as { config: Config };
const database = openDatabase(config.databaseUrl);
// Kysely's SQLite driver runs statements one at a time: this runs before the first group.
// Checkpoints run on the checkpoint thread (infra/db/sqlite-durability.ts, CheckpointPacer), not inline in
// this connection's COMMIT; the raised threshold is a safety net, lowered again if that thread fails.
const ready = database.db
  .executeQuery(CompiledQuery.raw('PRAGMA synchronous = NORMAL'))
  .then(() => database.db.executeQuery(CompiledQuery.raw(`PRAGMA wal_autocheckpoint = ${WAL_SAFETY_PAGES}`)));
let selfCheckpoint = false;
ready.catch(() => undefined); // awaited (and its failure reported) by the first group
const walFile = `${config.databaseUrl.replace(/^file:\/\//i, '')}-wal`;
// Kept open: SQLite never deletes the WAL while a connection (this one) has the database open, and a WAL
// restarted after a checkpoint is the same file written from its start.
let walFd: number | null = null;
let groupNow = 0;
// The group's time comes from the main thread (its clock may be a test's injected one).
const ctx: StoreContext = { config, dialect: 'sqlite', clock: { now: () => groupNow } as StoreContext['clock'] };
const BEGIN = CompiledQuery.raw('BEGIN IMMEDIATE');
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');

async function write(units: SendUnit[], now: number, checkpointHere: boolean): Promise<UnitResult[]> {
  groupNow = now;
  await ready;
  if (checkpointHere && !selfCheckpoint) {
    selfCheckpoint = true;
    await database.db.executeQuery(CompiledQuery.raw('PRAGMA wal_autocheckpoint = 1000'));
  }
  const results = await database.db.connection().execute(async (conn) => {
    await conn.executeQuery(BEGIN);
    try {
      const results = await commitUnits(conn, ctx, units, now);
      await conn.executeQuery(COMMIT);
      return results;
    } catch (err) {
      await conn.executeQuery(ROLLBACK).catch(() => undefined);
      throw err;
    }
  });
  // Blocks this thread only; the group is answered after it (see the top of the file).
  walFd ??= fs.openSync(walFile, 'r');
  fs.fdatasyncSync(walFd);
  return results;
}

function wireError(err: unknown): WireError {
  const e = err as { message?: unknown; code?: unknown };
  if (err instanceof ApiError) return { message: err.message, apiError: { errorCode: err.errorCode, status: err.status, extra: err.extra } };
  return { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined };
}

parentPort!.on('message', (m: Request | 'close') => {
  if (m === 'close') {
    if (walFd !== null) fs.closeSync(walFd);
    void database.close().then(() => parentPort!.close());
    return;
  }
  write(m.units, m.now, m.selfCheckpoint).then(
    (results) => parentPort!.postMessage({ id: m.id, results: results.map(toWireResult) }),
    (err: unknown) => parentPort!.postMessage({ id: m.id, failure: wireError(err) }),
  );
});
