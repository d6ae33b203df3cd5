// The sending batcher: concurrent send requests are gathered into one transaction by the group commit of
// src/infra/db/commit-batcher.ts, so that one durable commit serves many requests (up to
// MAX_GROUP_MESSAGES messages per group). A group's requests are answered once its commit is on disk
// (src/infra/db/sqlite-durability.ts); meanwhile the process keeps taking in requests for the next group, so the disk's
// latency does not stall it. (Writing the next group during the sync was measured: groups fell from 24 to
// 16 requests at 50 connections, and CPU per request rose by 10-30%, bench/README.md.)
//
// Built once per process by the composition root (src/context.ts) as ctx.sendBatcher.
import type { AppContext } from '../app-context.js';
import { CommitBatcher } from '../../infra/db/commit-batcher.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { createDurability, type Durability } from '../../infra/db/sqlite-durability.js';
import { commitUnits } from './commit-units.js';
import type { SendQueue, SendUnit, UnitResult } from './send-unit.js';

export const MAX_GROUP_MESSAGES = 2000;

export class SendBatcher implements SendQueue {
  private readonly durability: Durability;
  private readonly batcher: CommitBatcher<SendUnit, UnitResult>;

  constructor(ctx: AppContext) {
    const durability = createDurability(ctx.database, ctx.config.databaseUrl);
    this.durability = durability;
    this.batcher = new CommitBatcher<SendUnit, UnitResult>({
      name: 'sending',
      logger: ctx.logger,
      commit: (units) => {
        const messages = units.reduce((n, u) => n + u.slots.length, 0);
        ctx.metrics.groupCommitSize.observe({ committer: 'accept' }, messages);
        return durability.transact((trx) => commitUnits(trx, ctx, units, ctx.clock.now()), messages);
      },
      sync: () => durability.flush(),
      weight: (unit) => unit.slots.length,
      maxWeight: MAX_GROUP_MESSAGES,
      // Another process stored the same Idempotency-Key first: committed again, the request finds that
      // answer (commit-units.ts looks the key up in the transaction) and replays it.
      retryAlone: (unit, err) => unit.idempotency !== null && isUniqueViolation(err),
      afterGroup: () => ctx.runner.wake(),
    });
  }

  /** Transactions written and requests they carried (bench/send reports the average group size). */
  get stats(): { transactions: number; requests: number } {
    return this.batcher.stats;
  }

  /** Resolves once the request's messages are committed and on disk. */
  submit(unit: SendUnit): Promise<UnitResult> {
    return this.batcher.submit(unit);
  }

  /** Resolves when every submitted request has been committed and synced (graceful shutdown). */
  async drain(): Promise<void> {
    await this.batcher.drain();
    await this.durability.close();
  }
}
