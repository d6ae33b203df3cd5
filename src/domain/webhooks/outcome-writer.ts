// Group commit of webhook attempt outcomes. Each attempt's outcome (attempt row, notification state, job
// finished or rescheduled) must be durable before its job counts as done, but one commit per attempt makes
// the database's fsync the ceiling of webhook throughput; db/group-commit.ts shares one commit among them.
import type { Kysely } from 'kysely';
import { GroupCommitter } from '../../infra/db/group-commit.js';
import type { Database } from '../../infra/db/schema.js';

export type OutcomeWrite = (trx: Kysely<Database>) => Promise<void>;

export class OutcomeWriter extends GroupCommitter<OutcomeWrite> {
  constructor(db: Kysely<Database>) {
    super({
      db,
      maxGroup: 200,
      name: 'webhook outcomes',
      async apply(trx, writes) {
        for (const w of writes) await w(trx);
      },
    });
  }
}
