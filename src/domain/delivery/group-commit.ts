// Delivery outcomes of jobs finishing at about the same time share one transaction (db/group-commit.ts);
// an outcome that fails alone rejects its job's promise, and the runner retries the job.
import type { AppContext } from '../../context.js';
import { GroupCommitter } from '../../infra/db/group-commit.js';
import { applyOutcomes, type Outcome } from './outcome.js';

const committers = new WeakMap<AppContext, GroupCommitter<Outcome>>();

export function outcomeCommitterFor(ctx: AppContext): GroupCommitter<Outcome> {
  let c = committers.get(ctx);
  if (!c) {
    c = new GroupCommitter<Outcome>({ db: ctx.db, apply: (trx, outcomes) => applyOutcomes(trx, ctx, outcomes), logger: ctx.logger, name: 'delivery outcomes', observe: (n) => ctx.metrics.groupCommitSize.observe({ committer: 'delivery' }, n) });
    committers.set(ctx, c);
  }
  return c;
}
