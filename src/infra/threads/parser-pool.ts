// The process's pool of parser threads (pool.ts), as configured: MAILROOM_PARSE_THREADS workers (one per CPU
// by default) and MAILROOM_PARSE_QUEUE waiting messages. Each worker has its own heap limit: parsing holds a
// few times a message's bytes (10 MiB inbound, 10.5 MB submitted), and a message that needs more than
// WORKER_HEAP_MB loses its worker (the message is refused 554 5.6.0), never the process. The tasks' DNS
// questions are answered on the main thread by `resolve` (MAILROOM_DNS_SERVERS and its answer cache). The same
// workers inline templates' CSS (domain/templates/inline-css.ts), which bounds its own share of them.
import type { Config } from '../config-types.js';
import type { ResolveFn } from '../dns/cache.js';
import type { Logger } from '../logger.js';
import { ThreadPool, defaultThreads } from './pool.js';

export const WORKER_HEAP_MB = 512;
/** Below the event loop's thread: on a busy machine a 1 s parse must not delay a /healthz answer. */
export const WORKER_NICE = 5;
/** A task is linear in its message; one still running after this has a worker that is stuck. */
export const TASK_TIMEOUT_MS = 120_000;

export function parserPool(config: Pick<Config, 'parseThreads' | 'parseQueue' | 'parseThreadTasks'>, logger: Logger, resolve: ResolveFn): ThreadPool {
  return new ThreadPool({
    threads: config.parseThreads || defaultThreads(),
    maxQueue: config.parseQueue,
    tasksPerWorker: config.parseThreadTasks,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    taskTimeoutMs: TASK_TIMEOUT_MS,
    services: { resolve: (name, rrtype) => resolve(name as string, rrtype as string) },
    nice: WORKER_NICE,
    onWorkerLost: (err) => logger.warn({ err: err.message }, 'a parser thread was lost and replaced'),
  });
}
