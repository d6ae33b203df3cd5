// The one way an area enqueues work it would like this process to run at once: inside the transaction that
// stores the work, each job is stored already leased to the local runner where the runner has a slot for it
// (enqueue-leased.ts; no claim query is then needed), and enqueued normally where it has none. The caller
// gets one handle per job and, once its transaction is committed and durable, calls commit() with what it
// holds in memory for the handler (the handover); if the transaction failed, abort(). A process killed
// between the commit and commit() leaves leased rows that any runner claims once their lease runs out.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { enqueueJobs, type NewJob } from './enqueue.js';
import { enqueueLeasedJobs } from './enqueue-leased.js';
import type { JobRunner, Slot } from './runner.js';
import type { Job } from './types.js';

export interface LocalJob<H> {
  /** The transaction is committed and durable: the job runs here with `handover`, or waits for a claim. */
  commit(handover?: H): void;
  /** The transaction failed: nothing was stored, the slot held for the job goes back. */
  abort(): void;
}

/** Stores `jobs` in `trx`, leased to `runner` where it has room; returns one handle per job, in order. */
export async function enqueueLocal<H>(trx: Kysely<Database>, runner: JobRunner, jobs: NewJob[], now: number): Promise<LocalJob<H>[]> {
  const slots = jobs.map((j) => runner.reserve<H>(j.queue, j.groupKey ?? null));
  const handles: LocalJob<H>[] = [];
  try {
    const plain = jobs.filter((_, i) => !slots[i]);
    if (plain.length > 0) await enqueueJobs(trx, plain, now);
    // One statement per lease length (a queue's handler sets it): each row's lease is its own queue's.
    const byLease = new Map<number, number[]>();
    slots.forEach((slot, i) => {
      if (!slot) return;
      const at = byLease.get(slot.leaseMs);
      if (at) at.push(i);
      else byLease.set(slot.leaseMs, [i]);
    });
    for (const [leaseMs, at] of byLease) {
      const rows = await enqueueLeasedJobs(trx, at.map((i) => jobs[i]), now, { workerId: runner.workerId, until: now + leaseMs });
      at.forEach((i, k) => (handles[i] = leased(slots[i]!, rows[k])));
    }
  } catch (err) {
    for (const slot of slots) slot?.cancel();
    throw err;
  }
  jobs.forEach((j, i) => (handles[i] ??= unleased(runner, j.queue)));
  return handles;
}

function leased<H>(slot: Slot<H>, job: Job): LocalJob<H> {
  return { commit: (handover) => slot.start(job, handover), abort: () => slot.cancel() };
}

/** Enqueued without a slot: after the commit the runner is told to claim it (the wake-up names its queue). */
function unleased<H>(runner: JobRunner, queue: string): LocalJob<H> {
  return { commit: () => runner.wake(queue), abort: () => {} };
}
