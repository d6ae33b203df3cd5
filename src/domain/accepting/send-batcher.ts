// The sending batcher: concurrent send requests are gathered into one transaction by the group commit of
// src/infra/db/commit-batcher.ts, so that one durable commit serves many requests (up to
// MAX_GROUP_MESSAGES messages per group). A group's requests are answered once its commit is on disk.
//
// Where a group is written:
// - a SQLite file with MAILROOM_SEND_WRITER_THREAD=true (off by default: bench/README.md, issue 28): on the writer thread (send-writer.ts), which has
//   its own connection at synchronous=FULL and answers after COMMIT, i.e. after the fsync. The event loop
//   keeps parsing, validating and answering HTTP meanwhile; requests that arrive join the next group. The
//   second core does the SQLite work (inserts, COMMIT, the automatic checkpoints);
// - otherwise (PostgreSQL, in-memory SQLite, or the thread turned off): on the main connection through
//   src/infra/db/sqlite-durability.ts (on SQLite: COMMIT at NORMAL, then an fdatasync of the WAL on libuv's
//   pool before the answer; on PostgreSQL a plain transaction).
//
// Back-pressure: at most MAILROOM_SEND_QUEUE_LIMIT messages wait (queued or being written); a request that
// would go beyond is refused at once with 503 {ErrorCode: 100} and Retry-After, so memory stays bounded
// when the disk or the database cannot keep up. A request alone larger than the limit is taken when
// nothing waits.
//
// Built once per process by the composition root (src/context.ts) as ctx.sendBatcher.
import type { AppContext } from '../app-context.js';
import { CommitBatcher } from '../../infra/db/commit-batcher.js';
import { concurrentWriters } from '../../infra/db/row-locks.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { CheckpointPacer, createDurability, sqliteFileOf } from '../../infra/db/sqlite-durability.js';
import { ApiError, ErrorCode } from '../errors.js';
import { DELIVERY_QUEUES } from '../delivery/jobs.js';
import { commitUnits } from './commit-units.js';
import type { SendQueue, SendUnit, UnitResult } from './send-unit.js';
import { SendWriter } from './send-writer.js';

export const MAX_GROUP_MESSAGES = 2000;
/** Sending transactions written side by side on PostgreSQL (below), and the messages waiting that start one. */
const PG_WRITERS = 3;
const PG_PARALLEL_FROM = 25;
/** Seconds a refused client is asked to wait: a full queue drains in well under a second on this path. */
const RETRY_AFTER_SECONDS = 1;

/** Whether the sending path writes on a thread of its own (a SQLite file, and the setting on). */
export function usesWriterThread(ctx: Pick<AppContext, 'config' | 'database'>): boolean {
  return ctx.config.sendWriterThread && sqliteFileOf(ctx.database, ctx.config.databaseUrl) !== null;
}

export class SendBatcher implements SendQueue {
  private readonly batcher: CommitBatcher<SendUnit, UnitResult>;
  private readonly closeWriter: () => Promise<void>;
  private queued = 0;
  private readonly limit: number;

  constructor(ctx: AppContext) {
    this.limit = ctx.config.sendQueueLimit;
    const observe = (units: SendUnit[]) => {
      const messages = units.reduce((n, u) => n + u.slots.length, 0);
      ctx.metrics.groupCommitSize.observe({ committer: 'accept' }, messages);
      return messages;
    };
    let commit: (units: SendUnit[]) => Promise<UnitResult[]>;
    let sync: (() => Promise<void>) | undefined;
    if (usesWriterThread(ctx)) {
      const writer = new SendWriter(ctx.config, ctx.logger);
      // Checkpoints on a thread of their own, as on the event-loop path: inline in the writer's COMMIT, each
      // would stop the writer (measured: the batch fell from 12,800 to 4,400 msg/s, bench/README.md).
      const checkpoints = new CheckpointPacer(sqliteFileOf(ctx.database, ctx.config.databaseUrl)!);
      commit = async (units) => {
        const messages = observe(units);
        await checkpoints.before();
        const results = await writer.commit(units, ctx.clock.now(), checkpoints.failed);
        checkpoints.after(messages);
        return results;
      };
      this.closeWriter = () => writer.close();
    } else {
      const durability = createDurability(ctx.database, ctx.config.databaseUrl);
      commit = (units) => durability.transact((trx) => commitUnits(trx, ctx, units, ctx.clock.now()), observe(units));
      sync = () => durability.flush();
      this.closeWriter = () => durability.close();
    }
    this.batcher = new CommitBatcher<SendUnit, UnitResult>({
      name: 'sending',
      logger: ctx.logger,
      commit,
      sync,
      weight: (unit) => unit.slots.length,
      maxWeight: MAX_GROUP_MESSAGES,
      // Another process stored the same Idempotency-Key first: committed again, the request finds that
      // answer (commit-units.ts looks the key up in the transaction) and replays it.
      retryAlone: (unit, err) => unit.idempotency !== null && isUniqueViolation(err),
      // What a group enqueues: deliveries (of the bulk queue for a bulk request's pages).
      afterGroup: () => ctx.runner.wake(DELIVERY_QUEUES),
      // PostgreSQL takes transactions side by side (the counters are sharded and locked in a fixed order,
      // stats/counters.ts): while PG_PARALLEL_FROM messages or more wait, a second and third group are
      // written at once instead of queueing behind one transaction's round trips. Quiet machine, bench:send
      // on PostgreSQL (2026-11-26, alternating runs): /email 4,682-5,445 req/s with one writer until 500
      // waited, 6,024-6,074 with a writer for any wait (groups of a few requests, more CPU per request),
      // 6,672-7,253 from 25; batches of 500 21,100-24,440 msg/s. SQLite has one writer.
      parallel: concurrentWriters(ctx.dialect, PG_WRITERS),
      parallelFrom: PG_PARALLEL_FROM,
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
      return { error: new ApiError(ErrorCode.Maintenance, 'Too many messages are waiting to be stored; send the request again shortly.', 503, undefined, RETRY_AFTER_SECONDS) };
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
    await this.batcher.drain();
    await this.closeWriter();
  }
}
