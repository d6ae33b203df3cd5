// The webhook-outcome batcher. Each attempt's outcome (attempt row, notification state, job finished or
// rescheduled) must be durable before its job counts as done, but one commit per attempt makes the
// database's fsync the ceiling of webhook throughput; the group commit of src/infra/db/commit-batcher.ts
// shares one commit among them.
import type { Kysely } from 'kysely';
import { CommitBatcher, inTransaction } from '../../infra/db/commit-batcher.js';
import type { Database } from '../../infra/db/schema.js';

export type OutcomeWrite = (trx: Kysely<Database>) => Promise<void>;

export class OutcomeWriter extends CommitBatcher<OutcomeWrite> {
  constructor(db: Kysely<Database>) {
    super({
      name: 'webhook outcomes',
      maxWeight: 200,
      commit: inTransaction(db, async (trx, writes) => {
        for (const w of writes) await w(trx);
      }),
    });
  }
}
