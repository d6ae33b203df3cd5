// The delivery-outcome batcher: outcomes of jobs finishing at about the same time share one transaction
// (the group commit of src/infra/db/commit-batcher.ts); an outcome that fails alone rejects its job's
// promise, and the runner retries the job. Built by the worker role's composition (src/worker.ts).
import type { AppContext } from '../../context.js';
import { CommitBatcher, inTransaction } from '../../infra/db/commit-batcher.js';
import { applyOutcomes, type Outcome } from './outcome.js';

export type OutcomeBatcher = CommitBatcher<Outcome>;

export function createOutcomeBatcher(ctx: AppContext): OutcomeBatcher {
  return new CommitBatcher<Outcome>({ name: 'delivery outcomes', logger: ctx.logger, commit: inTransaction(ctx.db, (trx, outcomes) => applyOutcomes(trx, ctx, outcomes)) });
}
