// Threads that run the read-limited SELECTs (searches, lists) of a SQLite file off the event loop.
//
// better-sqlite3 runs a statement synchronously: on the main connection a search that walks a large store
// holds the event loop until it ends or meets its time limit, and every other request waits that long. Here
// each of a few worker threads holds its own read-only connection to the same file (WAL: readers run beside
// the writer and see what was committed before their statement began); the main thread sends the compiled
// SQL and its parameters and gets the rows back, and goes on answering meanwhile.
//
// - Small and bounded: THREADS threads, each running one statement at a time, and at most MAX_QUEUE
//   statements waiting; beyond that `query` throws ReadersBusy at once (the caller answers 503), so a flood of
//   slow searches neither queues without end nor comes back to the event loop.
// - The time limit is the deadline function that the queries carry (sqlite-reader-thread.ts): the statement
//   stops in its thread at the deadline, and the thread stays. A thread that has not answered GRACE_MS after
//   the deadline (a statement without the deadline check, or one row that costs that much) is terminated and
//   replaced, as is the thread of a read whose request went away (the signal): Node stops the thread at the
//   next row's deadline check, and its connection is closed by better-sqlite3's cleanup of the thread. The
//   deadline check is the normal way because it keeps the thread, its connection and its prepared statements;
//   terminating is the backstop that holds even when the check is missing.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { READER_SOURCE, type ReadReply, type ReadRequest } from './sqlite-reader-thread.js';

export const THREADS = 2;
export const MAX_QUEUE = 32;
export const GRACE_MS = 1_000;

/** Every reader thread is busy and MAX_QUEUE statements wait. */
export class ReadersBusy extends Error {
  constructor(threads: number, waiting: number) {
    super(`all ${threads} database reader threads are busy and ${waiting} queries wait`);
    this.name = 'ReadersBusy';
  }
}

/** The statement was stopped: its deadline passed ('deadline'), or its request went away ('abort'). */
export class ReadStopped extends Error {
  constructor(readonly reason: 'deadline' | 'abort') {
    super(reason === 'deadline' ? 'the read passed its deadline' : 'the read was abandoned');
    this.name = 'ReadStopped';
  }
}

/** An error of the statement itself (SQL, a constraint), with SQLite's code. */
export class ReaderError extends Error {
  constructor(
    name: string,
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = name;
  }
}

export interface ReadOptions {
  /** Epoch milliseconds after which the statement is stopped. */
  deadline: number;
  signal?: AbortSignal;
}

interface Task {
  req: ReadRequest;
  o: ReadOptions;
  resolve(rows: Record<string, unknown>[]): void;
  reject(err: Error): void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

export interface ReaderPoolOptions {
  threads?: number;
  maxQueue?: number;
  graceMs?: number;
  /** The name of the deadline function the queries call (time-limit.ts). */
  deadlineFunction: string;
  /** Further SQL functions the queries may call, as name and JavaScript source (text-functions.ts). */
  functions?: readonly { name: string; source: string }[];
}

export class SqliteReaderPool {
  readonly threads: number;
  readonly maxQueue: number;
  private readonly graceMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private seq = 0;
  private closed = false;
  /** Threads terminated (deadline overrun or abandoned read) and replaced: for tests and metrics. */
  replaced = 0;
  private readonly module = createRequire(import.meta.url).resolve('better-sqlite3');

  constructor(
    private readonly file: string,
    private readonly o: ReaderPoolOptions,
  ) {
    this.threads = Math.max(1, o.threads ?? THREADS);
    this.maxQueue = Math.max(0, o.maxQueue ?? MAX_QUEUE);
    this.graceMs = o.graceMs ?? GRACE_MS;
  }

  get running(): number {
    return this.slots.filter((s) => s.task).length;
  }
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs one SELECT on a reader thread; its rows, as better-sqlite3's `all` gives them. */
  query(sql: string, params: readonly unknown[], o: ReadOptions): Promise<Record<string, unknown>[]> {
    if (this.closed) return Promise.reject(new Error('the database reader threads are closed'));
    if (o.signal?.aborted) return Promise.reject(new ReadStopped('abort'));
    const free = this.slots.find((s) => !s.task) ?? (this.slots.length < this.threads ? this.spawn() : null);
    if (!free && this.queue.length >= this.maxQueue) return Promise.reject(new ReadersBusy(this.threads, this.queue.length));
    return new Promise((resolve, reject) => {
      const task: Task = { req: { id: ++this.seq, sql, params }, o, resolve, reject };
      if (o.signal) {
        task.onAbort = () => this.abandon(task);
        o.signal.addEventListener('abort', task.onAbort, { once: true });
      }
      if (free) this.start(free, task);
      else this.queue.push(task);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) this.settle(t, new Error('the database reader threads are closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.timer) clearTimeout(s.timer);
        if (s.task) this.settle(s.task, new Error('the database reader threads are closed'));
        return s.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(READER_SOURCE, {
      eval: true,
      workerData: { module: this.module, file: this.file, deadlineFunction: this.o.deadlineFunction, functions: this.o.functions ?? [] },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, task: null, timer: null };
    worker.unref();
    worker.on('message', (m: ReadReply) => this.onReply(slot, m));
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', (code) => this.replace(slot, new Error(`the database reader thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, task: Task): void {
    slot.task = task;
    const overrun = Math.max(0, task.o.deadline - Date.now()) + this.graceMs;
    slot.timer = setTimeout(() => this.replace(slot, new ReadStopped('deadline')), overrun);
    slot.timer.unref();
    slot.worker.postMessage(task.req);
  }

  private settle(task: Task, err: Error | null, rows?: Record<string, unknown>[]): void {
    if (task.onAbort) task.o.signal?.removeEventListener('abort', task.onAbort);
    if (err) task.reject(err);
    else task.resolve(rows!);
  }

  /** The slot is free again: it takes the next waiting task. */
  private next(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    const t = this.queue.shift();
    if (t) this.start(slot, t);
  }

  private onReply(slot: Slot, m: ReadReply): void {
    const task = slot.task;
    if (!task || task.req.id !== m.id) return;
    this.next(slot);
    if ('rows' in m) this.settle(task, null, m.rows.map(withBuffers));
    else this.settle(task, m.error.deadline ? new ReadStopped('deadline') : new ReaderError(m.error.name, m.error.message, m.error.code));
  }

  /** The request of a task went away: a waiting task leaves the queue, a running one loses its thread. */
  private abandon(task: Task): void {
    const i = this.queue.indexOf(task);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.settle(task, new ReadStopped('abort'));
      return;
    }
    const slot = this.slots.find((s) => s.task === task);
    if (slot) this.replace(slot, new ReadStopped('abort'));
  }

  /** The slot's thread is gone or must go: its task fails with `cause`, a new thread takes what waits. */
  private replace(slot: Slot, cause: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.timer) clearTimeout(slot.timer);
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('message');
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    this.replaced++;
    if (slot.task) this.settle(slot.task, cause instanceof ReadStopped ? cause : new ReaderError('ReaderLost', cause.message, undefined));
    if (this.closed) return;
    const t = this.queue.shift();
    if (t) this.start(this.spawn(), t);
  }
}

/** BLOB values come back as Uint8Array (structured clone); the main connection gives Buffers. */
function withBuffers(row: Record<string, unknown>): Record<string, unknown> {
  for (const k in row) {
    const v = row[k];
    if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return row;
}
