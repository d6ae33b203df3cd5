import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Logger } from '../logger.js';
import { claimPeriodicRun } from './periodic-claim.js';

/** A periodic maintenance task (purges, retention, DNS re-checks). Runs once per period across all worker
 * processes (claimPeriodicRun); tasks must still be idempotent, because a run cut short by a crash is
 * finished by the next period's run. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(now: number): Promise<void>;
}

/** How often each process asks whether a task is due: a run starts at most this long after it fell due. */
const CHECK_EVERY_MS = 30_000;

export class Scheduler {
  private readonly tasks: PeriodicTask[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly active = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  add(task: PeriodicTask): void {
    this.tasks.push(task);
  }

  start(): void {
    for (const t of this.tasks) {
      let busy = false;
      const fire = () => {
        if (busy) return;
        busy = true;
        const p: Promise<void> = this.runIfDue(t)
          .then(() => undefined)
          .catch((err) => this.logger.error({ err, task: t.name }, 'periodic task failed'))
          .finally(() => {
            busy = false;
            this.active.delete(p);
          });
        this.active.add(p);
      };
      const timer = setInterval(fire, Math.min(t.everyMs, CHECK_EVERY_MS));
      timer.unref();
      this.timers.push(timer);
      setImmediate(fire);
    }
  }

  /** Runs the task when this process wins this period's claim; returns whether it ran. */
  private async runIfDue(t: PeriodicTask): Promise<boolean> {
    const now = this.clock.now();
    if (!(await claimPeriodicRun(this.db, t.name, t.everyMs, now))) return false;
    await t.run(now);
    return true;
  }

  /** One round of what the timers do: each due task that this process claims runs. Returns the names run. */
  async runDue(): Promise<string[]> {
    const ran: string[] = [];
    for (const t of this.tasks) if (await this.runIfDue(t)) ran.push(t.name);
    return ran;
  }

  /** Runs every task once now, due or not; for tests (with a manual clock) and the CLI. */
  async runAll(): Promise<void> {
    for (const t of this.tasks) await t.run(this.clock.now());
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    await Promise.allSettled([...this.active]);
  }
}
