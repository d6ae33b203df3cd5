// Task module for pool.test.ts, run on the pool's worker threads.
import type { CallMain } from '../../../src/infra/threads/protocol.js';

/** Waits for the main thread's `hold` service (as a parse waits for DNS answers), then answers its input. */
export async function wait(input: string, call: CallMain): Promise<string> {
  await call('hold', input);
  return input;
}

/** Ends the worker thread, as a heap limit does. */
export function crash(): never {
  process.exit(3);
}
