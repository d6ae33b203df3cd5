// The slot a runner hands out for a job about to be stored already leased to it (runner.ts reserve(), used by
// enqueue-local.ts), and the set of those not yet started or cancelled, which stop() waits for.
import type { Job } from './types.js';

/**
 * A slot of a queue (and a place in the job's group) held for a job about to be stored already leased to this
 * runner. It counts as a job in flight from reserve() on, so the runner never holds more than its concurrency
 * of unsettled jobs. Exactly one of start() (after the job's commit) or cancel() (the commit failed, or stored
 * no job) gives it back; a slot never started, as in a process killed after the commit, leaves a leased row
 * that any runner claims again after `leaseMs`. enqueue-local.ts is the way the areas use it.
 */
export interface Slot<H = unknown> {
  readonly workerId: string;
  readonly leaseMs: number;
  /** Runs the stored job in this slot; `handover` reaches the handler. */
  start(job: Job, handover?: H): void;
  cancel(): void;
}

/** The slots handed out and not yet started or cancelled. */
export class OpenSlots {
  private readonly open = new Set<Promise<void>>();

  /** A slot whose first start() or cancel() runs `onStart` or `onCancel`; any later call does nothing. */
  add<H>(workerId: string, leaseMs: number, onStart: (job: Job, handover?: H) => void, onCancel: () => void): Slot<H> {
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    this.open.add(settled);
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      this.open.delete(settled);
      settle();
      return true;
    };
    return {
      workerId,
      leaseMs,
      start: (job, handover) => {
        if (close()) onStart(job, handover);
      },
      cancel: () => {
        if (close()) onCancel();
      },
    };
  }

  /** Resolves when every slot open now has been started or cancelled. */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.open]);
  }
}
