// The main thread's side of the sending path's writer thread (send-writer-thread.ts): hands it a group of
// validated send requests and resolves with their results once the group is committed and fsynced there.
// One group at a time (the group commit, infra/db/commit-batcher.ts, never writes two at once with `sync`
// absent and `parallel` 1), so the answers come back in order; a thread that dies fails the group in flight
// (its transaction was rolled back by SQLite, nothing of it is stored) and the next group starts a new one.
import { Worker } from 'node:worker_threads';
import type { Config } from '../../infra/config-types.js';
import type { Logger } from '../../infra/logger.js';
import type { SendUnit, UnitResult } from './send-unit.js';
import { fromWireError, fromWireResult, type WireError, type WireResult } from './send-writer-wire.js';

type Answer = { id: number; results: WireResult[] } | { id: number; failure: WireError };

// Under tsx (development, tests, benchmarks) this module is the .ts source and so is the thread's entry, and
// the thread needs tsx's loader too (module hooks are per thread); built, both are .js and need nothing.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const ENTRY = new URL(FROM_SOURCE ? './send-writer-thread.ts' : './send-writer-thread.js', import.meta.url);
function newThread(workerData: unknown): Worker {
  if (!FROM_SOURCE) return new Worker(ENTRY, { workerData });
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${api}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

export class SendWriter {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve(r: UnitResult[]): void; reject(err: unknown): void }>();

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Checks and stores the units in one transaction on the writer thread; resolves after its COMMIT (fsync). */
  /** `selfCheckpoint`: the checkpoint thread failed, so the writer's connection checkpoints by itself. */
  commit(units: SendUnit[], now: number, selfCheckpoint = false): Promise<UnitResult[]> {
    const worker = (this.worker ??= this.start());
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, units, now, selfCheckpoint });
    });
  }

  /** Lets the thread close its connection and end (after the last group: the batcher drained first). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.ref();
    w.postMessage('close');
    await exited;
  }

  private start(): Worker {
    const w = newThread({ config: this.config });
    w.on('message', (m: Answer) => {
      const entry = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      // Referenced only while a group is in flight: an idle thread never keeps the process alive.
      if (this.waiting.size === 0) w.unref();
      if (!entry) return;
      if ('failure' in m) entry.reject(fromWireError(m.failure));
      else entry.resolve(m.results.map(fromWireResult));
    });
    const fail = (err: unknown) => {
      if (this.worker === w) this.worker = null;
      if (this.waiting.size > 0) this.logger.error({ err }, 'sending: the writer thread ended with groups in flight; they are answered with an error');
      for (const e of this.waiting.values()) e.reject(err instanceof Error ? err : new Error('the writer thread ended'));
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the writer thread exited with code ${code}`)));
    w.unref();
    return w;
  }
}
