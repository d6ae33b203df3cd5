// The parser threads' refusal of a received message, shared by the areas that read mail on them (inbound's
// own mail, DMARC reports): the inbound listener answers it with 451 4.3.2, so the sender tries again later.
import { PoolFull, WorkerLost } from '../infra/threads/pool.js';

/** All parser threads are busy and MAILROOM_PARSE_QUEUE messages wait: the listener answers 451 4.3.2. */
export class ParsersBusy extends Error {}

/**
 * The pool's refusal of a parser task as ParsersBusy: the pool was full, or the thread died while it also read
 * other messages (so this message is not known to be the cause). undefined for any other failure.
 */
export function parsersBusy(err: unknown): ParsersBusy | undefined {
  if (err instanceof PoolFull) return new ParsersBusy(err.message);
  if (err instanceof WorkerLost && err.shared) return new ParsersBusy(`A parser thread failed while it read this message and others; try again: ${err.message}`);
  return undefined;
}
