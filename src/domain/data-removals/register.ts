// Worker-role registration of the data-removal queue (src/worker.ts).
import type { AppContext } from '../app-context.js';
import { DATA_REMOVAL_QUEUE } from './request.js';
import { runDataRemoval } from './run.js';

/** Rows per batch (one short transaction each): MAILROOM_DATA_REMOVAL_BATCH (tests use 1). */
export function registerDataRemovals(ctx: AppContext, batchSize = ctx.config.dataRemovalBatch): void {
  ctx.runner.register({
    queue: DATA_REMOVAL_QUEUE,
    concurrency: 1,
    // A removal of a large account runs for minutes; the lease outlasts it, and should a worker die the
    // next claim after the lease resumes the work (every step is idempotent).
    leaseMs: 15 * 60_000,
    handle: (job) => runDataRemoval(ctx, job, batchSize),
  });
}
