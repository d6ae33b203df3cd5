// The delivery-outcome batcher: outcomes of jobs finishing at about the same time share one transaction
// (the group commit of src/infra/db/group-commit.ts); an outcome that fails alone rejects its job's
// promise, and the runner retries the job. Built by the worker role's composition (src/worker.ts).
//
// Between the remote server's 250 and this commit a delivered message is unrecorded: a worker killed then
// leaves the job leased, and another worker sends the message again once the lease runs out. The runner holds
// at most MAILROOM_DELIVERY_CONCURRENCY unsettled jobs, so a group is never larger than that, and that is the
// bound on what a crash redoes (README, "Crash safety"). One group is written at a time: on PostgreSQL, writers
// side by side shortened the window but split the outcomes into smaller groups and cost more CPU per message
// (bench/README.md).
import type { AppContext } from '../app-context.js';
import { createGroupCommit, type GroupCommit } from '../../infra/db/group-commit.js';
import { applyOutcomes, type Outcome } from './outcome.js';

export type OutcomeBatcher = GroupCommit<Outcome>;

export function createOutcomeBatcher(ctx: AppContext): OutcomeBatcher {
  return createGroupCommit<Outcome>(ctx, {
    name: 'delivery outcomes',
    commit: (trx, outcomes) => applyOutcomes(trx, ctx, outcomes),
  });
}
