// The webhook-outcome writer. Each attempt's outcome (attempt row, notification state, job finished or
// rescheduled) must be durable before its job counts as done, but one commit per attempt makes the
// database's fsync the ceiling of webhook throughput; the group commit (src/infra/db/group-commit.ts)
// shares one commit among them.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import { createGroupCommit, type GroupCommit } from '../../infra/db/group-commit.js';
import type { Database } from '../../infra/db/schema.js';

export type OutcomeWrite = (trx: Kysely<Database>) => Promise<void>;

export function createOutcomeWriter(ctx: AppContext): GroupCommit<OutcomeWrite> {
  return createGroupCommit<OutcomeWrite>(ctx, {
    name: 'webhook outcomes',
    maxWeight: 200,
    commit: async (trx, writes) => {
      for (const w of writes) await w(trx);
    },
  });
}
