// A pool of worker threads for CPU work that does not need the event loop: MIME parsing and mail
// authentication of inbound and submitted mail, and the CSS inlining of templates. While a worker parses a
// hostile message (10,000 attachments, megabytes of base64), the main thread keeps answering HTTP and SMTP.
//
// - Sized to the machine (os.availableParallelism(), MAILROOM_PARSE_THREADS); workers start on first use.
// - Bounded: at most `maxQueue` tasks wait for a worker; beyond that run() throws PoolFull at once, and the
//   caller answers with back-pressure (SMTP 451 4.3.2) instead of holding more messages in memory.
// - A worker that crashes, runs out of its own heap (resourceLimits) or passes the time budget of a task is
//   replaced; its task fails with WorkerLost, and the process goes on.
// - The workers run at a lower priority (nice) than the event loop's thread, which answers HTTP and SMTP.
// - A task may ask the main thread for a service (`call` in worker-host.ts), e.g. DNS through the process's
//   resolver and its cache, so the worker needs no configuration of its own.
// Node's worker_threads rather than a dependency (piscina): the pool is this file, and it needs the request
// channel back to the main thread, which piscina does not offer.
import { availableParallelism } from 'node:os';
import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';
import { HOST_SOURCE, type HostMessage, type TaskRequest } from './protocol.js';

export class PoolFull extends Error {}
/** The worker running the task died (a crash, its heap limit, or the task's time budget). */
export class WorkerLost extends Error {
  /** The worker ran other tasks too: which one it died of is unknown, so none is to blame (a retry runs it anew). */
  constructor(
    message: string,
    readonly shared = false,
  ) {
    super(message);
  }
}
/** An error thrown by the task itself, with its name, message and own fields (e.g. an errorCode). */
export class TaskError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
    readonly fields: Record<string, unknown>,
  ) {
    super(message);
  }
}

export type ServiceFn = (...args: unknown[]) => Promise<unknown>;

export interface ThreadPoolOptions {
  threads?: number;
  maxQueue?: number;
  /** A worker's own heap limits: a task that needs more loses its worker, not the process. */
  resourceLimits?: ResourceLimits;
  /** A task running longer loses its worker. */
  taskTimeoutMs?: number;
  /** Tasks one worker runs at once (default TASKS_PER_WORKER), within WORKER_LOAD_BYTES of input. */
  tasksPerWorker?: number;
  /** Services the tasks may call on the main thread. */
  services?: Record<string, ServiceFn>;
  onWorkerLost?: (err: Error) => void;
  /** The workers' nice value (Linux: per thread). Parsing is throughput work; the event loop answers
   * requests, so when the CPUs are short the loop should win them. */
  nice?: number;
}

interface Job {
  req: TaskRequest;
  transfer: Transferable[];
  weight: number;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Running {
  job: Job;
  weight: number;
  timer: NodeJS.Timeout | null;
}

interface Slot {
  worker: Worker;
  /** The tasks this worker runs: several at once, as tasks wait for the main thread (DNS) between steps. */
  running: Map<number, Running>;
  /** The sum of their weights (bytes of message), bounded by WORKER_LOAD_BYTES. */
  load: number;
}

/**
 * A worker runs tasks concurrently up to this many, and up to this many bytes of input at once: a task waits
 * for DNS answers through the main thread (SPF, DKIM, DMARC), and one task per worker left the threads idle
 * for most of each message (bench:inbound 236 msg/s against 407 parsing on the event loop). The bytes bound
 * keeps a worker's heap (a few times its messages' bytes) well under its limit; a task of unknown size runs
 * alone.
 */
const TASKS_PER_WORKER = 16;
const WORKER_LOAD_BYTES = 32 * 1024 * 1024;

function weightOf(input: unknown, transfer: Transferable[], alone: boolean): number {
  if (alone) return WORKER_LOAD_BYTES;
  let w = typeof input === 'string' ? input.length : 0;
  for (const t of transfer) if (t instanceof ArrayBuffer) w += t.byteLength;
  return w > 0 ? Math.min(w, WORKER_LOAD_BYTES) : WORKER_LOAD_BYTES;
}

const hasRoom = (slot: Slot, weight: number, tasks: number): boolean =>
  slot.running.size === 0 || (slot.running.size < tasks && slot.load + weight <= WORKER_LOAD_BYTES);

export const defaultThreads = (): number => Math.max(1, availableParallelism());

export class ThreadPool {
  readonly threads: number;
  readonly maxQueue: number;
  readonly tasksPerWorker: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private seq = 0;
  private closed = false;
  private readonly tsLoader: string | null;

  constructor(private readonly o: ThreadPoolOptions = {}) {
    this.threads = Math.max(1, o.threads ?? defaultThreads());
    this.maxQueue = Math.max(0, o.maxQueue ?? 256);
    this.tasksPerWorker = Math.max(1, o.tasksPerWorker ?? TASKS_PER_WORKER);
    // Run from TypeScript sources (tests, benchmarks under tsx): workers do not inherit tsx's loader hooks.
    this.tsLoader = import.meta.url.endsWith('.ts') ? import.meta.resolve('tsx/esm/api') : null;
  }

  /** Tasks waiting for a worker, and tasks running. */
  get waiting(): number {
    return this.queue.length;
  }
  get running(): number {
    return this.slots.reduce((n, s) => n + s.running.size, 0);
  }

  /**
   * Runs export `fn` of the module at `module` (a file URL; under tsx the .ts one) with `input` on a worker.
   * `transfer`: ArrayBuffers moved to the worker instead of copied. `alone`: a task that computes from start
   * to end without waiting (CSS inlining) gets a worker of its own, since tasks sharing a worker would only
   * take turns on its one thread while another worker idles. Throws PoolFull when the queue is full.
   */
  run<T>(module: string, fn: string, input: unknown, transfer: Transferable[] = [], opts: { alone?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the thread pool is closed'));
    const weight = weightOf(input, transfer, opts.alone ?? false);
    const free = this.queue.length === 0 ? this.slots.find((s) => hasRoom(s, weight, this.tasksPerWorker)) : undefined;
    if (!free && this.slots.length >= this.threads && this.queue.length >= this.maxQueue) {
      return Promise.reject(new PoolFull(`all ${this.threads} worker threads are busy and ${this.queue.length} tasks wait`));
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = { req: { type: 'task', id: ++this.seq, module, fn, input }, transfer, weight, resolve: resolve as (v: unknown) => void, reject };
      const slot = free ?? (this.slots.length < this.threads ? this.spawn() : null);
      if (slot) this.start(slot, job);
      else this.queue.push(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.reject(new Error('the thread pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(HOST_SOURCE, {
      eval: true,
      workerData: { tsLoader: this.tsLoader, nice: this.o.nice ?? 0 },
      resourceLimits: this.o.resourceLimits,
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, running: new Map(), load: 0 };
    worker.unref();
    worker.on('message', (m: HostMessage) => this.onMessage(slot, m));
    worker.on('error', (err) => this.lose(slot, err));
    worker.on('exit', (code) => this.lose(slot, new Error(`the worker thread exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    const entry: Running = { job, weight: job.weight, timer: null };
    slot.running.set(job.req.id, entry);
    slot.load += job.weight;
    if (this.o.taskTimeoutMs) {
      entry.timer = setTimeout(() => {
        this.lose(slot, new Error(`the task ran longer than ${this.o.taskTimeoutMs} ms`));
      }, this.o.taskTimeoutMs);
      entry.timer.unref();
    }
    slot.worker.postMessage(job.req, job.transfer);
  }

  /** Task `id` of the slot ended: the slot takes what waits, in order, while it has room. */
  private finish(slot: Slot, id: number): Job | null {
    const entry = slot.running.get(id);
    if (!entry) return null;
    slot.running.delete(id);
    slot.load -= entry.weight;
    if (entry.timer) clearTimeout(entry.timer);
    while (this.queue.length && hasRoom(slot, this.queue[0]!.weight, this.tasksPerWorker)) this.start(slot, this.queue.shift()!);
    return entry.job;
  }

  private onMessage(slot: Slot, m: HostMessage): void {
    if (m.type === 'call') {
      const svc = this.o.services?.[m.service];
      const p = svc ? svc(...m.args) : Promise.reject(new Error(`no service ${m.service}`));
      p.then(
        (value) => slot.worker.postMessage({ type: 'reply', id: m.id, value }),
        (err: unknown) => slot.worker.postMessage({ type: 'reply', id: m.id, error: errorFields(err) }),
      );
      return;
    }
    const job = this.finish(slot, m.id);
    if (!job) return;
    if (m.type === 'done') job.resolve(m.value);
    else job.reject(new TaskError(m.error.name, m.error.message, m.error.fields));
  }

  /** The slot's worker is gone (or must go): its task fails, a new worker takes the queue. */
  private lose(slot: Slot, cause: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    const lost = [...slot.running.values()];
    slot.running.clear();
    slot.load = 0;
    for (const { job, timer } of lost) {
      if (timer) clearTimeout(timer);
      job.reject(new WorkerLost(cause.message, lost.length > 1));
    }
    if (lost.length) this.o.onWorkerLost?.(cause);
    if (!this.closed && this.queue.length) {
      const fresh = this.spawn();
      while (this.queue.length && hasRoom(fresh, this.queue[0]!.weight, this.tasksPerWorker)) this.start(fresh, this.queue.shift()!);
    }
  }
}

export function errorFields(err: unknown): { name: string; message: string; fields: Record<string, unknown> } {
  const e = err instanceof Error ? err : new Error(String(err));
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { name: e.constructor?.name ?? e.name, message: e.message, fields };
}

/** The URL of task module `name` beside the calling module (`import.meta.url`): .ts under tsx, .js in dist/. */
export function taskModule(importMetaUrl: string, name: string): string {
  return new URL(`./${name}${importMetaUrl.endsWith('.ts') ? '.ts' : '.js'}`, importMetaUrl).href;
}
