// The accept path of every send operation (POST /email, /email/batch, and the template sends of
// src/http/routes/templates): validate each message, then check and store the valid ones through the sending
// batcher. Returns one outcome per input, in input order; a failed message never stops the others.
import type { AppContext } from '../app-context.js';
import { ApiError } from '../errors.js';
import { commitUnits, failure, type SendUnit, type Slot } from './commit-units.js';
import type { IdempotencyInput } from './idempotency.js';
import { prepareMessage } from './validate.js';
import { turnTaker } from '../templates/take-turns.js';
import type { PreparedMessage, SendOutcome } from './types.js';

export type { SendOutcome, SendResult } from './types.js';
export { readIdempotencyKey } from './idempotency.js';

export interface SendAuth {
  accountId: number;
  serverId: number;
  /** The SERVICE_API_TEST token: validate fully, store and send nothing. */
  testMode: boolean;
  /** Any From is taken into a Sandbox server (checks.ts): the development SMTP listener, Mailpit's send API. */
  anyFrom?: boolean;
}

export interface AcceptOptions {
  /** TemplateModel is substituted into the message (the single send only). */
  allowTemplateModel?: boolean;
  idempotency?: IdempotencyInput | null;
  /** Where the messages came from, for the mailroom_messages_accepted_total metric (default 'api'). */
  source?: string;
  /** Turns an input into a validated message; default prepareMessage (the JSON form). SMTP submission
   * (src/domain/submission) passes its own, which runs prepareMessage and then applies the envelope. */
  prepare?: (input: unknown) => PreparedMessage;
}

/**
 * Accepts messages for one server. Each outcome carries the send result (the batch item) and the HTTP
 * status a single send answers with (200, 422, or 413 for an oversize message). Throws ApiError only for
 * a refusal of the whole request (an Idempotency-Key reused for another request).
 */
export async function acceptMessages(ctx: AppContext, auth: SendAuth, inputs: unknown[], opts: AcceptOptions = {}): Promise<SendOutcome[]> {
  const sender = { accountId: auth.accountId, serverId: auth.serverId, ...(auth.anyFrom ? { anyFrom: true } : {}) };
  // The key is looked up once, in the transaction that would store its answer (commit-units.ts).
  const idempotency = auth.testMode ? null : (opts.idempotency ?? null);
  const slots: Slot[] = [];
  // A batch's TemplateModel renders run one after another: other requests get a turn between them.
  const takeTurn = turnTaker();
  for (const input of inputs) {
    await takeTurn();
    try {
      slots.push({ message: opts.prepare ? opts.prepare(input) : prepareMessage(input, { allowTemplateModel: opts.allowTemplateModel ?? false }) });
    } catch (err) {
      if (err instanceof ApiError) slots.push({ outcome: failure(err) });
      else throw err;
    }
  }
  const unit: SendUnit = { sender, slots, idempotency };
  // Nothing to store: answered at once, unless a key may hold an earlier answer (or belong to another request).
  if (!idempotency && !slots.some((s) => 'message' in s)) return slots.map((s) => (s as { outcome: SendOutcome }).outcome);
  const result = auth.testMode
    ? (await commitUnits(ctx.db, ctx, [unit], ctx.clock.now(), true))[0]
    : await ctx.sendBatcher.submit(unit);
  if ('error' in result) throw result.error;
  if (!auth.testMode) countAccepted(ctx, slots, result.outcomes, opts.source ?? 'api');
  return result.outcomes;
}

function countAccepted(ctx: AppContext, slots: Slot[], outcomes: SendOutcome[], source: string): void {
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if ('message' in s && outcomes[i]?.result.ErrorCode === 0) ctx.metrics.messagesAccepted.inc({ stream: s.message.streamId, source });
  }
}
