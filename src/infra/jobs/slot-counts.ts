// What the runner holds, counted: per queue, its unsettled jobs (claimed, handed over, or in a slot reserved
// for a job about to be stored leased); per group of a queue, the jobs running and those waiting here for a
// place in the group, with the waiting ones in order. Pure bookkeeping, no clock, no database: the runner
// (runner.ts) asks it whether a job may start and how much to claim, and tells it what started and settled.

export interface QueueLimits {
  /** Jobs of the queue unsettled at once in this process. */
  concurrency: number;
  /** Jobs of one group running at once in this process (Infinity: no group limit). */
  groupConcurrency: number;
}

/** What a claim for a queue may take: at most `limit` jobs, none of the `full` groups, and no group past its room. */
export interface ClaimRoom {
  limit: number;
  /** Jobs of each group running or waiting here (the claim gives each group the room it has left). */
  held: Map<string, number>;
  /** Groups with no room left: the claim leaves them out. */
  full: string[];
}

/** How a reserved slot counts: running in its group, or waiting for a place in it. */
export type Reservation = 'run' | 'wait';

interface Group<W> {
  running: number;
  waiting: number;
  /** Handed-over jobs waiting for a place, oldest first. */
  queue: W[];
}

/** The most one claim takes, however much room there is. */
const CLAIM_MAX = 100;

export class SlotCounts<W = () => void> {
  private readonly held = new Map<string, number>();
  private readonly groups = new Map<string, Map<string, Group<W>>>();

  constructor(private readonly limits: (queue: string) => QueueLimits) {}

  /** Unsettled jobs of `queue` in this process. */
  inFlight(queue: string): number {
    return this.held.get(queue) ?? 0;
  }

  /** Running and waiting jobs of one group (zeros when it has none). */
  group(queue: string, group: string): { running: number; waiting: number } {
    const g = this.groups.get(queue)?.get(group);
    return { running: g?.running ?? 0, waiting: g?.waiting ?? 0 };
  }

  /**
   * A claim's room for `queue`, or null when it should not claim now: no free slot, or (with jobs in flight)
   * less than a quarter of its slots free. A busy queue claims for a quarter of its room at once rather than
   * for every job that settles: each claim is a query and a batched load.
   */
  claimRoom(queue: string): ClaimRoom | null {
    const { concurrency, groupConcurrency } = this.limits(queue);
    const held = this.inFlight(queue);
    const free = concurrency - held;
    if (free <= 0 || (held > 0 && free < Math.ceil(concurrency / 4))) return null;
    const byGroup = new Map<string, number>();
    if (groupConcurrency !== Infinity) {
      for (const [name, g] of this.groups.get(queue) ?? []) if (g.running + g.waiting > 0) byGroup.set(name, g.running + g.waiting);
    }
    const full = [...byGroup].filter(([, n]) => n >= groupConcurrency).map(([name]) => name);
    return { limit: Math.min(free, CLAIM_MAX), held: byGroup, full };
  }

  /**
   * Counts a slot for a job about to be handed over, or refuses (null): the queue is full, or its group has as
   * many jobs waiting here as it runs at once. A job whose group is full may wait here for a place (`wait`), so
   * one busy group holds at most twice its share of the queue's slots.
   */
  reserve(queue: string, group: string | null): Reservation | null {
    const { concurrency, groupConcurrency } = this.limits(queue);
    if (this.inFlight(queue) >= concurrency) return null;
    const g = group === null ? null : this.groupOf(queue, group);
    const cap = g === null ? Infinity : groupConcurrency;
    const kind: Reservation = g !== null && g.running + g.waiting >= cap ? 'wait' : 'run';
    if (kind === 'wait' && g!.waiting >= cap) return null;
    this.bump(queue, 1);
    if (g) g[kind === 'wait' ? 'waiting' : 'running']++;
    return kind;
  }

  /** Gives back a reserved slot that was never started. */
  unreserve(queue: string, group: string | null, kind: Reservation): void {
    this.bump(queue, -1);
    if (group !== null) this.groupDown(queue, group, kind === 'wait' ? 'waiting' : 'running');
  }

  /** Counts a claimed job, running. */
  take(queue: string, group: string | null): void {
    this.bump(queue, 1);
    if (group !== null) this.groupOf(queue, group).running++;
  }

  /**
   * A handed-over job of a reserved `wait` slot: it runs now if its group has a place (true, counted running),
   * or queues behind the group's earlier waiters (false) until `leaveGroup` hands it the place.
   */
  admit(queue: string, group: string, waiter: W): boolean {
    const g = this.groupOf(queue, group);
    if (g.running < this.limits(queue).groupConcurrency) {
      g.waiting--;
      g.running++;
      return true;
    }
    g.queue.push(waiter);
    return false;
  }

  /**
   * A job leaves its group's place (its work that needs the group is done; it may still be unsettled). Returns
   * the waiter that takes the place, counted running, or undefined when none waits.
   */
  leaveGroup(queue: string, group: string): W | undefined {
    const g = this.groupOf(queue, group);
    g.running--;
    const next = g.queue.shift();
    if (next !== undefined) {
      g.waiting--;
      g.running++;
    }
    this.forgetIfEmpty(queue, group, g);
    return next;
  }

  /** A job settled: its queue slot is free. */
  settle(queue: string): void {
    this.bump(queue, -1);
  }

  private bump(queue: string, d: number): void {
    const n = (this.held.get(queue) ?? 0) + d;
    if (n === 0) this.held.delete(queue);
    else this.held.set(queue, n);
  }

  private groupOf(queue: string, group: string): Group<W> {
    let byName = this.groups.get(queue);
    if (!byName) this.groups.set(queue, (byName = new Map()));
    let g = byName.get(group);
    if (!g) byName.set(group, (g = { running: 0, waiting: 0, queue: [] }));
    return g;
  }

  private groupDown(queue: string, group: string, field: 'running' | 'waiting'): void {
    const g = this.groupOf(queue, group);
    g[field]--;
    this.forgetIfEmpty(queue, group, g);
  }

  /** A group with nothing running or waiting is dropped, so the maps stay as small as the work in flight. */
  private forgetIfEmpty(queue: string, group: string, g: Group<W>): void {
    if (g.running > 0 || g.waiting > 0 || g.queue.length > 0) return;
    const byName = this.groups.get(queue)!;
    byName.delete(group);
    if (byName.size === 0) this.groups.delete(queue);
  }
}
