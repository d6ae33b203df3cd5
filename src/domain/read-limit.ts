// Searches and lists run under the database's time limit (infra/db/time-limit.ts) and stop when the
// request that asked went away. A limit that is hit is the caller's answer: an ApiError naming it.
import type { AppContext } from './app-context.js';
import { ApiError, ErrorCode, ServiceBusy } from './errors.js';
import { ReadAborted, TimeLimitExceeded } from '../infra/db/time-limit.js';
import { ReadersBusy } from '../infra/db/sqlite-reader-pool.js';

/** Runs `run` with a context whose `db` puts every statement under the read time limit. */
export async function limitedRead<T>(ctx: AppContext, signal: AbortSignal | undefined, run: (ctx: AppContext) => Promise<T>): Promise<T> {
  try {
    return await ctx.database.sql.timeLimited(ctx.db, { limitMs: ctx.database.readLimitMs, signal, readers: ctx.database.readers }, (db) => run({ ...ctx, db }));
  } catch (err) {
    if (err instanceof TimeLimitExceeded) {
      throw new ApiError(ErrorCode.QueryTimeLimit, `The search ran past its time limit of ${err.limitMs} ms and was stopped. Narrow it: a longer word (3 characters or more use the index), a date range, fewer terms.`);
    }
    // Nobody reads this answer; 499 (the client closed the request, as proxies log it) keeps it out of the 5xx.
    if (err instanceof ReadAborted) throw new ApiError(ErrorCode.QueryTimeLimit, err.message, 499);
    if (err instanceof ReadersBusy) throw new ServiceBusy('Every database reader is busy with other searches; try again in a moment.');
    throw err;
  }
}
