// Group commit, the one batching primitive: items submitted while a group is being written queue up, and
// the next group takes all of them (up to maxWeight), so one durable commit (an fsync under SQLite's
// synchronous=FULL, a WAL flush on PostgreSQL) serves many writers. No timer: an idle batcher writes a lone
// item at once, and items submitted in the same turn of the event loop join one group.
//
// With `sync` (the sending path's WAL fdatasync off the event loop), a group is answered once its sync is
// done; the next group is gathered meanwhile and written after that sync, so groups grow with the load.
//
// With `parallel`, up to that many groups are written at once, each in its own transaction: an item then
// waits only when every writer is busy. With `parallelFrom`, a writer beyond the first starts (and goes on)
// only while at least that much weight waits: small items keep filling one large group (fewer commits per
// item), while large ones (the sending path's batches on PostgreSQL) are written side by side instead of
// queueing behind one another's round trips. The delivery outcomes use one writer
// (domain/delivery/outcome-batcher.ts says why).
//
// Isolation of failures: if a group's commit fails, nothing of it was stored; each item is then committed
// alone, so one bad item cannot fail or mis-answer the others. An item that fails alone rejects its own
// promise, unless `retryAlone` says the failure was a race that one more commit resolves.
//
// Built through group-commit.ts, which adds the database's durability, conflict retry and metrics.
import type { Logger } from '../logger.js';

interface Pending<T, R> {
  item: T;
  weight: number;
  resolve(r: R): void;
  reject(err: unknown): void;
}

export interface CommitBatcherOptions<T, R> {
  /** Writes a group in one transaction; one result per item, in order. */
  commit(items: T[]): Promise<R[]>;
  /** Makes what was committed durable before the group is answered; the next group waits for it. */
  sync?(): Promise<void>;
  /** How much of a group an item takes (default 1); a group holds at most maxWeight, and at least one item. */
  weight?(item: T): number;
  maxWeight?: number;
  /** An item whose commit failed alone is committed once more when this says so (a lost race). */
  retryAlone?(item: T, err: unknown): boolean;
  /**
   * Groups written at once (default 1), each in its own transaction. Only for commits that may run side by
   * side (row locks taken in a fixed order), and not with `sync`, whose order it would not keep.
   */
  parallel?: number;
  /** With `parallel`: the waiting weight from which writers beyond the first run (default: any). */
  parallelFrom?: number;
  /** Called after each group is settled (answered or failed over to one-by-one commits). */
  afterGroup?(): void;
  logger?: Logger;
  /** Names the batcher in the log line written when a group falls back to one-by-one commits. */
  name: string;
}

export class CommitBatcher<T, R = void> {
  private queue: Pending<T, R>[] = [];
  /** The weight of the items in `queue`. */
  private waitingWeight = 0;
  /** Writers running or about to run; counted synchronously so that no submitted item is left unwritten. */
  private writers = 0;
  /** A writer is scheduled and has not yet taken its first group: new items will join that group. */
  private scheduled = false;
  private readonly loops = new Set<Promise<void>>();
  private syncing: Promise<void> = Promise.resolve();
  /** Groups written and items they carried (bench/send reports the average group size). */
  readonly stats = { transactions: 0, requests: 0 };

  constructor(private readonly o: CommitBatcherOptions<T, R>) {}

  /** Resolves with the item's result once its group is committed (and synced). */
  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      const weight = this.o.weight?.(item) ?? 1;
      this.queue.push({ item, weight, resolve, reject });
      this.waitingWeight += weight;
      this.startWriter();
    });
  }

  /** Resolves when every submitted item has been committed and synced (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.loops.size > 0) await Promise.all([...this.loops]);
    await this.syncing;
  }

  private startWriter(): void {
    if (this.scheduled || this.writers >= Math.max(1, this.o.parallel ?? 1)) return;
    if (this.writers > 0 && !this.extraWriterWanted()) return;
    this.scheduled = true;
    this.writers++;
    // Items submitted in the same turn of the event loop join this writer's first group.
    const loop = new Promise<void>((done) => setImmediate(() => void this.loop().finally(done)));
    this.loops.add(loop);
    void loop.finally(() => this.loops.delete(loop));
  }

  private extraWriterWanted(): boolean {
    return this.waitingWeight >= (this.o.parallelFrom ?? 0);
  }

  private async loop(): Promise<void> {
    const max = this.o.maxWeight ?? 256;
    this.scheduled = false;
    try {
      // A writer beyond the first stops once little waits (parallelFrom); the last one never stops early.
      while (this.queue.length > 0 && (this.writers === 1 || this.extraWriterWanted())) {
        // The previous group's sync first: items keep arriving meanwhile, so the next group is larger and the
        // number of commits per item drops as load rises.
        await this.syncing;
        if (this.queue.length === 0) break; // another writer took them meanwhile
        let n = 0;
        let weight = 0;
        while (n < this.queue.length && (n === 0 || weight + this.queue[n].weight <= max)) weight += this.queue[n++].weight;
        const group = this.queue.splice(0, n);
        this.waitingWeight -= weight;
        // What arrives while this group is written may start another writer (up to `parallel`).
        await this.write(group);
      }
    } finally {
      // Synchronous with the queue check above: an item submitted from now on starts a writer of its own.
      this.writers--;
    }
  }

  private async write(group: Pending<T, R>[]): Promise<void> {
    this.stats.transactions++;
    this.stats.requests += group.length;
    let results: R[];
    try {
      results = await this.o.commit(group.map((p) => p.item));
    } catch (err) {
      if (group.length === 1) await this.settleAlone(group[0], err);
      else {
        this.o.logger?.warn({ err, items: group.length }, `${this.o.name}: group failed; committing its items one by one`);
        for (const p of group) {
          try {
            p.resolve(await this.commitAlone(p.item));
          } catch (e) {
            await this.settleAlone(p, e);
          }
        }
      }
      this.o.afterGroup?.();
      return;
    }
    if (!this.o.sync) {
      group.forEach((p, i) => p.resolve(results[i]));
      this.o.afterGroup?.();
      return;
    }
    // Not awaited here: the next group is taken in while this one's commit reaches the disk.
    const synced = this.o.sync();
    this.syncing = synced.catch(() => undefined);
    void synced.then(
      () => {
        group.forEach((p, i) => p.resolve(results[i]));
        this.o.afterGroup?.();
      },
      (err) => {
        this.o.logger?.error({ err }, `${this.o.name}: could not sync the database to disk; the group is answered with an error`);
        for (const p of group) p.reject(err);
      },
    );
  }

  private async commitAlone(item: T): Promise<R> {
    const [r] = await this.o.commit([item]);
    await this.o.sync?.();
    return r;
  }

  private async settleAlone(p: Pending<T, R>, err: unknown): Promise<void> {
    if (!this.o.retryAlone?.(p.item, err)) return p.reject(err);
    try {
      p.resolve(await this.commitAlone(p.item));
    } catch (e) {
      p.reject(e);
    }
  }
}
