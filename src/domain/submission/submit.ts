// One message submitted over SMTP, accepted through the same path as POST /email (accepting/accept.ts):
// the same checks in the same transaction, the same group commit, answered only once the commit is durable.
// Parsing and validation run on a parser thread (prepare-task.ts); storing on this one.
import type { AppContext } from '../app-context.js';
import { acceptMessages, type SendAuth, type SendOutcome } from '../accepting/accept.js';
import { ApiError, ErrorCode } from '../errors.js';
import { PoolFull, WorkerLost, taskModule } from '../../infra/threads/pool.js';
import type { PreparedSubmission, Refusal } from './prepare-task.js';

const PREPARE_TASK = taskModule(import.meta.url, 'prepare-task');

/** All parser threads are busy and MAILROOM_PARSE_QUEUE messages wait: the listener answers 451 4.3.2. */
export class SubmissionBusy extends Error {}

const apiError = (r: Refusal) => new ApiError(r.errorCode, r.message, r.status ?? undefined);

/**
 * Accepts the raw message for the envelope recipients. `raw` is moved to the parser thread (transferred:
 * the caller must not use it afterwards, and it must not be a view of Node's shared Buffer pool). Throws
 * ApiError when the MIME cannot be read, SubmissionBusy when the parser threads' queue is full.
 */
export async function submitMessage(ctx: AppContext, auth: SendAuth, raw: Uint8Array, rcptTo: string[]): Promise<SendOutcome> {
  let prepared: PreparedSubmission;
  try {
    prepared = await ctx.threads.run<PreparedSubmission>(PREPARE_TASK, 'prepareSubmitted', { raw, rcptTo }, [raw.buffer as ArrayBuffer]);
  } catch (err) {
    if (err instanceof PoolFull) throw new SubmissionBusy(err.message);
    // Its heap limit or time budget: the same bytes would fail the same way again.
    if (err instanceof WorkerLost && err.shared) throw new SubmissionBusy(`A parser thread failed while it read this message and others; try again: ${err.message}`);
    if (err instanceof WorkerLost) throw new ApiError(ErrorCode.InvalidEmailRequest, `The message could not be parsed within the parser's limits: ${err.message}`);
    throw err;
  }
  if ('stage' in prepared && prepared.stage === 'parse') throw apiError(prepared.refusal);
  // A refusal by validation is the message's outcome, as acceptMessages reports a prepare() that throws.
  const [outcome] = await acceptMessages(ctx, auth, [prepared], {
    source: 'smtp',
    prepare: () => {
      if ('message' in prepared) return prepared.message;
      throw apiError(prepared.refusal);
    },
  });
  return outcome;
}
