// The one send handler of the four send routes (POST /email, /email/batch, /email/withTemplate,
// /email/batchWithTemplates): read the Idempotency-Key, hand the messages to the domain, shape the answer.
// A single send answers a refused message with its error status; a batch answers 200 with one result per
// message. The routes differ only in where the messages are in the body and which domain call takes them.
import type { FastifyRequest } from 'fastify';
import { readIdempotencyKey } from '../../../domain/accepting/idempotency.js';
import { MAX_BATCH_MESSAGES } from '../../../domain/accepting/limits.js';
import type { SendOutcome, SendResult } from '../../../domain/accepting/types.js';
import type { SendAuth } from '../../../domain/accepting/accept.js';
import type { IdempotencyInput } from '../../../domain/accepting/idempotency.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { serverAuth } from '../../types.js';

/** The domain call behind a send route: one outcome per input, in input order. */
export type SendMessages = (auth: SendAuth, inputs: unknown[], idempotency: IdempotencyInput | null) => Promise<SendOutcome[]>;

// The schemas document the body; src/domain/accepting/validate.ts validates each message on its own, so one
// bad message in a batch does not refuse the others.
export const documentOnly = () => (data: unknown) => ({ value: data });
export const sendRouteConfig = { auth: 'server', allowTestToken: true, validationErrorCode: ErrorCode.InvalidEmailRequest } as const;

/** POST of one message (the body is the message). */
export function singleSend(route: string, send: SendMessages) {
  return async (req: FastifyRequest): Promise<SendResult> => {
    const body: unknown = req.body;
    const idempotency = readIdempotencyKey(req.headers['idempotency-key'], route, body);
    const [o] = await send(serverAuth(req.auth), [body], idempotency);
    if (o.result.ErrorCode !== 0) throw new ApiError(o.result.ErrorCode, o.result.Message, o.status);
    return o.result;
  };
}

/** POST of a batch: `messagesOf` finds the array in the body, or explains what the body must be. */
export function batchSend(route: string, messagesOf: (body: unknown) => unknown[] | string, send: SendMessages) {
  return async (req: FastifyRequest): Promise<SendResult[]> => {
    const body: unknown = req.body;
    const messages = messagesOf(body);
    if (typeof messages === 'string') throw new ApiError(ErrorCode.InvalidEmailRequest, messages);
    if (messages.length > MAX_BATCH_MESSAGES) {
      throw new ApiError(ErrorCode.TooManyBatchMessages, `A batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${messages.length}.`);
    }
    const idempotency = readIdempotencyKey(req.headers['idempotency-key'], route, body);
    const outcomes = await send(serverAuth(req.auth), messages, idempotency);
    return outcomes.map((o) => o.result);
  };
}
