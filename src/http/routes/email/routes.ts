import type { AppContext } from '../../../context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { serverAuth, type App } from '../../types.js';
import { acceptMessages, readIdempotencyKey } from '../../../domain/accepting/accept.js';
import { committerFor } from '../../../domain/accepting/group-commit.js';
import { MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, MAX_SINGLE_REQUEST_BYTES } from '../../../domain/accepting/limits.js';
import { BatchBodySchema, BatchResultSchema, OutgoingMessageSchema, SendResultSchema } from './schemas.js';

// See schemas.ts: the schemas document the body; src/domain/accepting/validate.ts validates it.
const documentOnly = () => (data: unknown) => ({ value: data });
const config = { auth: 'server', allowTestToken: true, validationErrorCode: ErrorCode.InvalidEmailRequest } as const;

/** POST /email and /email/batch (docs/reference/sending.md). */
export default async function emailRoutes(app: App, ctx: AppContext): Promise<void> {
  // On shutdown, requests already handed to the group committer are committed before the database closes.
  app.addHook('onClose', () => committerFor(ctx).drain());
  app.post(
    '/email',
    {
      config,
      bodyLimit: MAX_SINGLE_REQUEST_BYTES,
      validatorCompiler: documentOnly,
      schema: { tags: ['sending'], security: [{ serverToken: [] }], body: OutgoingMessageSchema, response: { 200: SendResultSchema } },
    },
    async (req) => {
      const body: unknown = req.body;
      const idempotency = readIdempotencyKey(req.headers['idempotency-key'], '/email', body);
      const [o] = await acceptMessages(ctx, serverAuth(req.auth), [body], { allowTemplateModel: true, idempotency });
      if (o.result.ErrorCode !== 0) throw new ApiError(o.result.ErrorCode, o.result.Message, o.status);
      return o.result;
    },
  );

  app.post(
    '/email/batch',
    {
      config,
      bodyLimit: MAX_BATCH_BYTES,
      validatorCompiler: documentOnly,
      schema: { tags: ['sending'], security: [{ serverToken: [] }], body: BatchBodySchema, response: { 200: BatchResultSchema } },
    },
    async (req) => {
      const body: unknown = req.body;
      if (!Array.isArray(body)) throw new ApiError(ErrorCode.InvalidEmailRequest, 'The request body must be a JSON array of messages.');
      if (body.length > MAX_BATCH_MESSAGES) {
        throw new ApiError(ErrorCode.TooManyBatchMessages, `A batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${body.length}.`);
      }
      const idempotency = readIdempotencyKey(req.headers['idempotency-key'], '/email/batch', body);
      const outcomes = await acceptMessages(ctx, serverAuth(req.auth), body, { idempotency });
      return outcomes.map((o) => o.result);
    },
  );
}
