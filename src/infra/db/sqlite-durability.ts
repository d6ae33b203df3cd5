// How a group's transaction is made durable before its requests are answered.
//
// SQLite with synchronous=FULL fsyncs the write-ahead log inside COMMIT, and better-sqlite3 runs COMMIT on
// the event loop: every group commit would stop the whole process for the length of an fsync (3 ms on this
// project's test machine, far more under load). So the sending path commits its group with
// synchronous=NORMAL (no fsync inside COMMIT; the WAL frames are written to the OS, and SQLite still syncs
// the WAL before every checkpoint, https://www.sqlite.org/pragma.html#pragma_synchronous), restores FULL
// before it lets go of the connection, and then fdatasyncs the WAL on libuv's thread pool. Only after that
// sync are the group's requests answered: an acknowledged message is on disk exactly as with FULL, and the
// event loop keeps parsing the next requests (and writes the next group) while the disk works. A crash
// before the sync loses only unanswered requests; WAL frames carry checksums, so a torn tail is discarded
// on recovery and the database stays consistent.
//
// Checkpoints: SQLite's automatic checkpoint runs inside COMMIT on the connection that crosses the threshold
// (1000 pages), i.e. on the event loop, and it fsyncs the WAL and the database file. The sending path raises
// that threshold on the main connection to a safety net (WAL_SAFETY_PAGES) and has a worker thread with its own
// connection (synchronous=FULL) run PASSIVE checkpoints instead, one at a time, every CHECKPOINT_EVERY stored
// rows' worth of commits. A WAL file restarts from its beginning only once a checkpoint has copied all of it
// while nobody wrote; so when a group finds HARD_EVERY commits' worth of WAL since the last complete one, it
// waits (asynchronously: the event loop keeps taking requests, which join the next, larger group) for a
// checkpoint that runs with no sending transaction beside it.
//
// PostgreSQL (its COMMIT does not block the event loop) and SQLite set below FULL use a plain transaction.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

export interface Durability {
  /** Runs `fn` in one transaction; `messages` (default 1) is how many messages it stores. */
  transact<T>(fn: (db: Kysely<Database>) => Promise<T>, messages?: number): Promise<T>;
  /** Resolves once everything committed before the call is on disk. */
  flush(): Promise<void>;
  /** Waits for running syncs and releases the file descriptor they use (shutdown). */
  close(): Promise<void>;
}

const FULL = 2;

// Compiled once: the builder's sql`` would be compiled again for every group (the statements themselves are
// prepared once, by the statement cache of db/database.ts). The synchronous level is switched per group on
// the one main connection; a second connection kept at NORMAL would need no switch, but a write on either
// would then wait for the other's lock synchronously on the event loop, where the holder cannot progress.
const NORMAL = CompiledQuery.raw('PRAGMA synchronous = NORMAL');
const RESTORE_FULL = CompiledQuery.raw(`PRAGMA synchronous = ${FULL}`);
const BEGIN = CompiledQuery.raw('BEGIN IMMEDIATE');
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');

/** Messages stored between two background checkpoints (about 10 KB of WAL each), and after which a group
 * waits for a complete checkpoint. */
const CHECKPOINT_EVERY = 500;
const HARD_EVERY = 5000;
/** The main connection's own automatic checkpoint, for writes outside the sending path (pages of 4 KiB). */
const WAL_SAFETY_PAGES = 32_768;

// CommonJS, evaluated in the worker: one connection, one PASSIVE checkpoint per message.
const CHECKPOINT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
parentPort.on('message', (id) => {
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ id, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

/** Runs checkpoints of one database file on a worker thread; one at a time. */
class Checkpointer {
  private worker: Worker | null = null;
  private seq = 0;
  private waiting = new Map<number, { resolve(complete: boolean): void }>();
  private running: Promise<boolean> | null = null;
  /** The worker could not run (it failed or exited): the main connection checkpoints by itself again. */
  failed = false;

  constructor(private readonly file: string) {}

  get busy(): boolean {
    return this.running !== null;
  }

  /** Resolves true when the checkpoint copied the whole WAL; false on a partial or failed one. */
  run(): Promise<boolean> {
    if (this.failed) return Promise.resolve(false);
    if (this.running) return this.running;
    const p = this.request().finally(() => {
      if (this.running === p) this.running = null;
    });
    this.running = p;
    return p;
  }

  /** Waits for the running checkpoint, then runs one more. */
  async complete(): Promise<boolean> {
    if (this.running) await this.running;
    return this.run();
  }

  private start(): Worker {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    const w = new Worker(CHECKPOINT_WORKER, { eval: true, workerData: { module, file: this.file } });
    w.on('message', (m: { id: number; busy?: number; log?: number; checkpointed?: number; error?: string }) => {
      const entry = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) w.unref();
      entry?.resolve(!m.error && m.busy === 0 && m.log === m.checkpointed);
    });
    const fail = () => {
      if (this.worker === w) this.failed = true;
      this.worker = null;
      for (const e of this.waiting.values()) e.resolve(false);
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', fail);
    // Referenced only while a checkpoint is awaited: an idle worker never keeps the process alive. (After the
    // listeners: adding a 'message' listener refs the worker again.)
    w.unref();
    return w;
  }

  private request(): Promise<boolean> {
    this.worker ??= this.start();
    const id = ++this.seq;
    const worker = this.worker;
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve });
      worker.ref();
      worker.postMessage(id);
    });
  }
}

/** fdatasync of one file, coalesced: callers during a running sync share the next one. The WAL's descriptor
 * stays open between syncs (an open and a close per group cost as much main-thread time as the sync call
 * itself); SQLite never deletes the WAL while a connection (ours) has the database open. close() releases it. */
class FileSync {
  private current: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private fd: { path: string; fd: number } | null = null;

  constructor(private readonly paths: string[]) {}

  sync(): Promise<void> {
    if (this.next) return this.next;
    if (!this.current) return this.start();
    const after = this.current.then(
      () => undefined,
      () => undefined,
    );
    this.next = after.then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  /** Waits for the running syncs, then closes the descriptor; a later sync opens it again. */
  async close(): Promise<void> {
    while (this.next ?? this.current) await (this.next ?? this.current)!.catch(() => undefined);
    const open = this.fd;
    this.fd = null;
    if (open) await new Promise<void>((resolve) => fs.close(open.fd, () => resolve()));
  }

  private start(): Promise<void> {
    const p = this.run().finally(() => {
      if (this.current === p) this.current = null;
    });
    this.current = p;
    return p;
  }

  private async run(): Promise<void> {
    if (!this.fd) {
      for (const path of this.paths) {
        try {
          this.fd = { path, fd: await new Promise<number>((resolve, reject) => fs.open(path, 'r', (err, fd) => (err ? reject(err) : resolve(fd)))) };
          break;
        } catch (err) {
          // No WAL file: it was checkpointed and removed, and NORMAL synced the database file after that.
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      if (!this.fd) return;
    }
    const open = this.fd;
    await new Promise<void>((resolve, reject) => fs.fdatasync(open.fd, (err) => (err ? reject(err) : resolve())));
    // The database file stood in for a missing WAL: look for the WAL again next time.
    if (open.path !== this.paths[0] && this.fd === open) {
      this.fd = null;
      fs.close(open.fd, () => undefined);
    }
  }
}

/**
 * Checkpoints of a SQLite file on a worker thread, paced by the sending path's commits (see the top of the
 * file): `before()` ahead of a group (waits, after HARD_EVERY messages without a complete checkpoint, for one
 * that runs with no sending transaction beside it), `after(messages)` once the group is committed.
 */
class CheckpointPacer {
  private readonly checkpointer: Checkpointer;
  private sinceStart = 0;
  private sinceComplete = 0;
  private commits = 0;

  constructor(file: string) {
    this.checkpointer = new Checkpointer(file);
  }

  /** The worker could not run: the connection should checkpoint by itself again. */
  get failed(): boolean {
    return this.checkpointer.failed;
  }

  async before(): Promise<void> {
    if (this.sinceComplete < HARD_EVERY || this.checkpointer.failed) return;
    // No sending transaction runs during this one: it copies the whole WAL, which then restarts.
    if (await this.checkpointer.complete()) this.sinceComplete = 0;
    this.sinceStart = 0;
  }

  after(messages: number): void {
    this.commits++;
    this.sinceComplete += messages;
    this.sinceStart += messages;
    if (this.sinceStart >= CHECKPOINT_EVERY && !this.checkpointer.busy) {
      this.sinceStart = 0;
      const at = this.commits;
      // Complete only if no group committed meanwhile (the checkpoint counts the frames present at its start).
      void this.checkpointer.run().then((complete) => {
        if (complete && this.commits === at) this.sinceComplete = 0;
      });
    }
  }
}

/** The SQLite file behind `database`, or null for PostgreSQL and an in-memory SQLite database. */
export function sqliteFileOf(database: Pick<Db, 'dialect'>, databaseUrl: string): string | null {
  const file = databaseUrl.replace(/^file:\/\//i, '');
  return database.dialect === 'sqlite' && file !== ':memory:' && file !== '' ? file : null;
}

/**
 * The commit of the sending path's groups for this database: the machinery above on a SQLite file, a plain
 * transaction on PostgreSQL and on an in-memory SQLite database. `databaseUrl` names the file.
 */
export function createDurability(database: Db, databaseUrl: string): Durability {
  const db = database.db;
  const plain: Durability = {
    transact: (fn) => db.transaction().execute(fn),
    flush: async () => {},
    close: async () => {},
  };
  const file = sqliteFileOf(database, databaseUrl);
  if (file === null) return plain;

  const walSync = new FileSync([`${file}-wal`, file]);
  const checkpoints = new CheckpointPacer(file);
  let level: number | null = null;
  let restored = false;
  return {
    async transact(fn, messages = 1) {
      if (level === null) {
        const r = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db);
        level = Number(r.rows[0]?.synchronous ?? FULL);
        if (level >= FULL) await sql.raw(`PRAGMA wal_autocheckpoint = ${WAL_SAFETY_PAGES}`).execute(db);
      }
      if (level < FULL) return plain.transact(fn);
      if (checkpoints.failed && !restored) {
        restored = true;
        await sql`PRAGMA wal_autocheckpoint = 1000`.execute(db);
      } else await checkpoints.before();
      const restore = level === FULL ? RESTORE_FULL : CompiledQuery.raw(`PRAGMA synchronous = ${level}`);
      const result = await db.connection().execute(async (conn) => {
        await conn.executeQuery(NORMAL);
        try {
          await conn.executeQuery(BEGIN);
          try {
            const result = await fn(conn);
            await conn.executeQuery(COMMIT);
            return result;
          } catch (err) {
            await conn.executeQuery(ROLLBACK).catch(() => undefined);
            throw err;
          }
        } finally {
          await conn.executeQuery(restore);
        }
      });
      checkpoints.after(messages);
      return result;
    },
    flush: () => (level !== null && level >= FULL ? walSync.sync() : Promise.resolve()),
    close: () => walSync.close(),
  };
}
