// Completes bulk requests as their last messages are handed off, not at the next 'bulk-finish' round (30 s
// later). Every 'deliver-bulk' job pokes the finisher when it is done; the finisher runs finishBulkRequests
// (one query for the open requests whose pages are all compiled, then one index probe per such request) at
// most once per FINISH_EVERY_MS per process, plus once after the last poke: however many messages are
// delivered a second, a handful of small queries, never one per message.
import type { AppContext } from '../app-context.js';
import { finishBulkRequests } from './status.js';

export const FINISH_EVERY_MS = 250;

export interface BulkFinisher {
  /** A bulk message was handed off: check soon (at once, when no check ran in the last FINISH_EVERY_MS). */
  poke(): Promise<void>;
  /** No check starts after this; waits for the running one. */
  stop(): Promise<void>;
}

export function createBulkFinisher(ctx: AppContext): BulkFinisher {
  let lastRun = -Infinity;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const run = (): Promise<void> => {
    lastRun = performance.now();
    const p = finishBulkRequests(ctx, ctx.clock.now())
      .then(() => undefined)
      .catch((err: unknown) => ctx.logger.warn({ err }, 'bulk: completing finished requests failed (the bulk-finish task retries)'))
      .finally(() => {
        if (running === p) running = null;
      });
    running = p;
    return p;
  };

  const later = (): void => {
    if (timer || stopped) return;
    timer = setTimeout(
      () => {
        timer = null;
        if (stopped) return;
        // A check still running saw the database before the latest hand-offs: one more after it.
        if (running) void running.then(later);
        else void run();
      },
      Math.max(0, FINISH_EVERY_MS - (performance.now() - lastRun)),
    );
    // Never keeps the process alive; the periodic 'bulk-finish' task is the backstop.
    timer.unref();
  };

  return {
    async poke() {
      if (stopped) return;
      // Awaited by the delivery job when it runs the check itself, so that runUntilIdle also waits for it.
      if (!running && !timer && performance.now() - lastRun >= FINISH_EVERY_MS) return run();
      later();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running;
    },
  };
}
