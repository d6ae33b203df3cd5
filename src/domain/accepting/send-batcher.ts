// The sending batcher: concurrent send requests are gathered into one transaction by the group commit
// (src/infra/db/group-commit.ts), so that one durable commit serves many requests (up to MAX_GROUP_MESSAGES
// messages per group). A group's requests are answered once its commit is on disk; the database's policy
// (on a SQLite file COMMIT at NORMAL, then an fdatasync of the WAL off the event loop) is the group commit's.
//
// Back-pressure: at most MAILROOM_SEND_QUEUE_LIMIT messages wait (queued or being written); a request that
// would go beyond is refused at once (ServiceBusy: the edges answer 503 with Retry-After), so memory stays bounded
// when the disk or the database cannot keep up. A request alone larger than the limit is taken when
// nothing waits.
//
// Built once per process by the composition root (src/context.ts) as ctx.sendBatcher.
import type { AppContext } from '../app-context.js';
import { createGroupCommit, type GroupCommit } from '../../infra/db/group-commit.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { ServiceBusy } from '../errors.js';
import { DELIVERY_QUEUES } from '../delivery/jobs.js';
import { commitUnits } from './commit-units.js';
import type { SendQueue, SendUnit, UnitResult } from './send-unit.js';

export const MAX_GROUP_MESSAGES = 2000;
/** Sending transactions written side by side on PostgreSQL (below), and the messages waiting that start one. */
const PG_WRITERS = 3;
const PG_PARALLEL_FROM = 25;
/** Seconds a refused client is asked to wait: a full queue drains in well under a second on this path. */
const RETRY_AFTER_SECONDS = 1;

export class SendBatcher implements SendQueue {
  private readonly batcher: GroupCommit<SendUnit, UnitResult>;
  private queued = 0;
  private readonly limit: number;

  constructor(ctx: AppContext) {
    this.limit = ctx.config.sendQueueLimit;
    this.batcher = createGroupCommit<SendUnit, UnitResult>(ctx, {
      name: 'accept',
      commit: (trx, units) => commitUnits(trx, ctx, units, ctx.clock.now()),
      weight: (unit) => unit.slots.length,
      maxWeight: MAX_GROUP_MESSAGES,
      // Another process stored the same Idempotency-Key first: committed again, the request finds that
      // answer (commit-units.ts looks the key up in the transaction) and replays it.
      retryAlone: (unit, err) => unit.idempotency !== null && isUniqueViolation(err),
      // What a group enqueues: deliveries (of the bulk queue for a bulk request's pages).
      afterGroup: () => ctx.runner.wake(DELIVERY_QUEUES),
      // PostgreSQL takes transactions side by side (the counters are sharded and locked in a fixed order,
      // stats/counters.ts): while PG_PARALLEL_FROM messages or more wait, a second and third group are
      // written at once instead of queueing behind one transaction's round trips (bench/README.md).
      parallel: { writers: PG_WRITERS, from: PG_PARALLEL_FROM },
    });
  }

  /** Transactions written and requests they carried (bench/send reports the average group size). */
  get stats(): { transactions: number; requests: number } {
    return this.batcher.stats;
  }

  /** Messages submitted and not yet answered (the back-pressure count). */
  get waiting(): number {
    return this.queued;
  }

  /** Resolves once the request's messages are committed and on disk; a full queue answers 503 at once. */
  async submit(unit: SendUnit): Promise<UnitResult> {
    const weight = unit.slots.length;
    if (this.queued > 0 && this.queued + weight > this.limit) {
      return { error: new ServiceBusy('Too many messages are waiting to be stored; send the request again shortly.', RETRY_AFTER_SECONDS) };
    }
    this.queued += weight;
    try {
      return await this.batcher.submit(unit);
    } finally {
      this.queued -= weight;
    }
  }

  /** Resolves when every submitted request has been committed and synced (graceful shutdown). */
  async drain(): Promise<void> {
    await this.batcher.close();
  }
}
