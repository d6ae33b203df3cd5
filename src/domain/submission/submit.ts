// One message submitted over SMTP, accepted through the same path as POST /email (accepting/accept.ts):
// the same checks in the same transaction, the same group commit, answered only once the commit is durable.
import type { AppContext } from '../app-context.js';
import { acceptMessages, type SendAuth, type SendOutcome } from '../accepting/accept.js';
import { ApiError, ErrorCode } from '../errors.js';
import { prepareSubmission } from './envelope.js';
import { parseSubmission, type ParsedSubmission } from './from-mime.js';

/** Accepts the raw message for the envelope recipients. Throws ApiError when the MIME cannot be read. */
export async function submitMessage(ctx: AppContext, auth: SendAuth, raw: Buffer, rcptTo: string[]): Promise<SendOutcome> {
  let parsed: ParsedSubmission;
  try {
    parsed = await parseSubmission(raw);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(ErrorCode.InvalidEmailRequest, `The message could not be parsed as MIME: ${(err as Error).message}`);
  }
  const [outcome] = await acceptMessages(ctx, auth, [parsed], { source: 'smtp', prepare: (p) => prepareSubmission(p as ParsedSubmission, rcptTo) });
  return outcome;
}
