// Group commit: concurrent send requests are gathered into one transaction, so that one durable commit (an
// fsync with SQLite's synchronous=FULL, a WAL flush on PostgreSQL) serves many requests. No timer is
// involved: while a transaction is being written, new requests queue up, and the next transaction takes all
// of them (up to MAX_GROUP_MESSAGES). An idle service commits a lone request at once.
//
// A group's requests are answered once its commit is on disk (src/infra/db/sqlite-durability.ts); meanwhile
// the process keeps taking in requests for the next group, so the disk's latency does not stall it.
//
// Isolation of failures: if a group's transaction fails, nothing of it was stored; each request is then
// committed alone, so one bad request cannot fail or mis-answer the others.
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { createDurability, type Durability } from '../../infra/db/sqlite-durability.js';
import { commitUnits, replayed, type SendUnit, type UnitResult } from './commit-units.js';
import { findStoredAnswer } from './idempotency.js';

export const MAX_GROUP_MESSAGES = 2000;

interface Pending {
  unit: SendUnit;
  size: number;
  resolve(r: UnitResult): void;
  reject(err: unknown): void;
}

export class GroupCommitter {
  private queue: Pending[] = [];
  private running = false;
  private flushing: Promise<void> = Promise.resolve();
  private looping: Promise<void> = Promise.resolve();
  /** Transactions written and requests they carried (bench/send reports the average group size). */
  readonly stats = { transactions: 0, requests: 0 };

  private readonly durability: Durability;

  constructor(private readonly ctx: AppContext) {
    this.durability = createDurability(ctx.database, ctx.config.databaseUrl);
  }

  submit(unit: SendUnit): Promise<UnitResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ unit, size: unit.slots.length, resolve, reject });
      if (!this.running) {
        this.running = true;
        // Requests parsed in the same turn of the event loop join this first group.
        this.looping = new Promise((done) => setImmediate(() => void this.loop().finally(done)));
      }
    });
  }

  /** Resolves when every submitted request has been committed and synced (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.running) await this.looping;
    await this.flushing;
    await this.durability.close();
  }

  private async loop(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // The previous group's sync first: requests keep arriving meanwhile, so the next group is larger and
        // the number of commits (and of WAL pages written) per message drops as load rises. (Writing the next
        // group during the sync was measured: groups fell from 24 to 16 requests at 50 connections, and CPU
        // per request rose by 10-30%, bench/README.md.)
        await this.flushing;
        let n = 0;
        let size = 0;
        while (n < this.queue.length && (n === 0 || size + this.queue[n].size <= MAX_GROUP_MESSAGES)) size += this.queue[n++].size;
        await this.commit(this.queue.splice(0, n));
      }
    } finally {
      this.running = false;
    }
  }

  private async commit(group: Pending[]): Promise<void> {
    this.stats.transactions++;
    this.stats.requests += group.length;
    let results: UnitResult[];
    try {
      results = await this.transact(group.map((p) => p.unit));
    } catch (err) {
      if (group.length === 1) await this.settleAlone(group[0], err);
      else {
        this.ctx.logger.warn({ err, requests: group.length }, 'group commit failed; committing its requests one by one');
        for (const p of group) {
          try {
            const [r] = await this.transact([p.unit]);
            await this.durability.flush();
            p.resolve(r);
          } catch (e) {
            await this.settleAlone(p, e);
          }
        }
      }
      this.ctx.runner.wake();
      return;
    }
    // Not awaited here: requests for the next group are taken in while this one's commit reaches the disk.
    const flushed = this.durability.flush();
    this.flushing = flushed.catch(() => undefined);
    void flushed.then(
      () => {
        group.forEach((p, i) => p.resolve(results[i]));
        this.ctx.runner.wake();
      },
      (err) => {
        this.ctx.logger.error({ err }, 'could not sync the database to disk; the requests are answered with an error');
        for (const p of group) p.reject(err);
      },
    );
  }

  private transact(units: SendUnit[]): Promise<UnitResult[]> {
    const messages = units.reduce((n, u) => n + u.slots.length, 0);
    this.ctx.metrics.groupCommitSize.observe({ committer: 'accept' }, messages);
    return this.durability.transact((trx) => commitUnits(trx, this.ctx, units, this.ctx.clock.now()), messages);
  }

  /** A request that failed alone: another process may have stored the same Idempotency-Key first. */
  private async settleAlone(p: Pending, err: unknown): Promise<void> {
    const idem = p.unit.idempotency;
    if (idem && isUniqueViolation(err)) {
      try {
        const stored = await findStoredAnswer(this.ctx.db, p.unit.sender.serverId, idem, this.ctx.clock.now());
        if (stored) return p.resolve({ outcomes: replayed(stored) });
      } catch (e) {
        return p.reject(e);
      }
    }
    p.reject(err);
  }
}

const committers = new WeakMap<AppContext, GroupCommitter>();

export function committerFor(ctx: AppContext): GroupCommitter {
  let c = committers.get(ctx);
  if (!c) {
    c = new GroupCommitter(ctx);
    committers.set(ctx, c);
  }
  return c;
}
