// The delivery-outcome batcher: outcomes of jobs finishing at about the same time share one transaction
// (the group commit of src/infra/db/commit-batcher.ts); an outcome that fails alone rejects its job's
// promise, and the runner retries the job. Built by the worker role's composition (src/worker.ts).
//
// Between the remote server's 250 and this commit a delivered message is unrecorded: a worker killed then
// leaves the job leased, and another worker sends the message again once the lease runs out. So an outcome
// never waits behind a long queue: on PostgreSQL several groups are written side by side (their message rows
// are locked in id order, outcome.ts), and the runner holds at most MAILROOM_DELIVERY_CONCURRENCY jobs, so a
// group is never larger than that (README, "Crash safety").
import type { AppContext } from '../../context.js';
import { CommitBatcher, inTransaction, parallelCommits } from '../../infra/db/commit-batcher.js';
import { applyOutcomes, type Outcome } from './outcome.js';

export type OutcomeBatcher = CommitBatcher<Outcome>;

export function createOutcomeBatcher(ctx: AppContext): OutcomeBatcher {
  return new CommitBatcher<Outcome>({
    name: 'delivery outcomes',
    logger: ctx.logger,
    parallel: parallelCommits(ctx.dialect, ctx.config.databasePoolSize),
    commit: inTransaction(ctx.db, (trx, outcomes) => applyOutcomes(trx, ctx, outcomes)),
  });
}
