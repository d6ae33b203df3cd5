// Transactions that PostgreSQL aborted for a conflict with another transaction, not for anything in their own
// data: run again, they succeed. A deadlock (40P01) or a serialization failure (40001) aborts whichever
// transaction the server picks; a row routed to a default partition while a day partition is attached beside
// it fails its partition constraint check (23514) once. Group commits of outcomes retry these themselves:
// failing the group would fail jobs whose mail the remote server already accepted, and their retry would
// send it again.
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);

export function isConflictAbort(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e.code !== 'string') return false;
  if (RETRYABLE_SQLSTATES.has(e.code)) return true;
  return e.code === '23514' && typeof e.message === 'string' && e.message.includes('partition constraint');
}

/** Runs `run` (one whole transaction) again when it was aborted by a conflict, at most `attempts` times. */
export async function withConflictRetry<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      if (i >= attempts || !isConflictAbort(err)) throw err;
    }
  }
}
