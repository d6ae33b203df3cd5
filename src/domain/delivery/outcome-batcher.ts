// The delivery-outcome batcher: outcomes of jobs finishing at about the same time share one transaction
// (the group commit of src/infra/db/commit-batcher.ts); an outcome that fails alone rejects its job's
// promise, and the runner retries the job. Built by the worker role's composition (src/worker.ts).
//
// Between the remote server's 250 and this commit a delivered message is unrecorded: a worker killed then
// leaves the job leased, and another worker sends the message again once the lease runs out. The runner holds
// at most MAILROOM_DELIVERY_CONCURRENCY unsettled jobs, so a group is never larger than that, and that is the
// bound on what a crash redoes (README, "Crash safety"). One group is written at a time: on PostgreSQL, four
// side by side (CommitBatcher's `parallel`) shortened the window but split the outcomes into smaller groups,
// and bench:deliver measured 0.85-0.88 CPU ms per message against 0.69-0.74 with one writer on a quiet
// machine (2026-11-23), 944-973 msg/s against 1,125-1,176.
import type { AppContext } from '../app-context.js';
import { CommitBatcher, inTransaction } from '../../infra/db/commit-batcher.js';
import { applyOutcomes, type Outcome } from './outcome.js';

export type OutcomeBatcher = CommitBatcher<Outcome>;

export function createOutcomeBatcher(ctx: AppContext): OutcomeBatcher {
  return new CommitBatcher<Outcome>({
    name: 'delivery outcomes',
    logger: ctx.logger,
    commit: inTransaction(ctx.db, (trx, outcomes) => applyOutcomes(trx, ctx, outcomes)),
  });
}
