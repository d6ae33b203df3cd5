// The HTML check (html-check.ts) off the event loop. It is linear in the HTML, but a 5 MB body still takes
// seconds of CPU, and a few such checks at once would leave /healthz unanswered: a body past
// CHECK_ON_LOOP_BELOW is checked on the process's worker threads (infra/threads, as templates' CSS inlining
// is), and a burst that would fill the pool's queue (which the SMTP listeners share) is refused with 503 and
// Retry-After instead of waiting in memory.
import { PoolFull, WorkerLost, taskModule, type ThreadPool } from '../../infra/threads/pool.js';
import { ApiError, ErrorCode, ServiceBusy } from '../errors.js';
import { htmlCheck, type HtmlCheckResponse } from './html-check.js';

/** Under this many characters the check takes about a millisecond: less than the hop to a worker. */
export const CHECK_ON_LOOP_BELOW = 64 * 1024;
/** Checks under way or waiting on the pool, per worker thread; beyond it a request is refused (503). */
export const CHECKS_PER_THREAD = 2;
export const RETRY_AFTER_SECONDS = 1;

export type CheckThreads = Pick<ThreadPool, 'run' | 'threads'>;

const TASK = taskModule(import.meta.url, 'html-check');
const underWay = new WeakMap<CheckThreads, number>();

const busy = () => new ServiceBusy('Too many HTML checks are running at once; ask again shortly.', RETRY_AFTER_SECONDS);

/** The same answer as htmlCheck(html); a large body is checked on a worker thread. */
export async function runHtmlCheck(threads: CheckThreads, html: string): Promise<HtmlCheckResponse> {
  if (html.length < CHECK_ON_LOOP_BELOW) return htmlCheck(html);
  const n = underWay.get(threads) ?? 0;
  if (n >= threads.threads * CHECKS_PER_THREAD) throw busy();
  underWay.set(threads, n + 1);
  try {
    // Alone on its worker: the check computes from start to end without waiting.
    return await threads.run<HtmlCheckResponse>(TASK, 'htmlCheck', html, [], { alone: true });
  } catch (err) {
    if (err instanceof PoolFull) throw busy();
    if (err instanceof WorkerLost) {
      throw new ApiError(ErrorCode.InvalidRequestFields, `The message's HTML took more memory or time to check than a check may take (${err.message}).`);
    }
    throw err;
  } finally {
    underWay.set(threads, (underWay.get(threads) ?? 1) - 1);
  }
}
