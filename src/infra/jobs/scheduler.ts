import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

/** A periodic maintenance task (purges, retention, DNS re-checks). Tasks must be idempotent: with several
 * worker processes each runs them, and a crash mid-way is finished by the next run. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(now: number): Promise<void>;
}

export class Scheduler {
  private readonly tasks: PeriodicTask[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly active = new Set<Promise<void>>();

  constructor(
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
        const p = t
          .run(this.clock.now())
          .catch((err) => this.logger.error({ err, task: t.name }, 'periodic task failed'))
          .finally(() => {
            busy = false;
            this.active.delete(p);
          });
        this.active.add(p);
      };
      const timer = setInterval(fire, t.everyMs);
      timer.unref();
      this.timers.push(timer);
      setImmediate(fire);
    }
  }

  /** Runs every task once now; for tests (with a manual clock) and the CLI. */
  async runAll(): Promise<void> {
    for (const t of this.tasks) await t.run(this.clock.now());
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    await Promise.allSettled([...this.active]);
  }
}
