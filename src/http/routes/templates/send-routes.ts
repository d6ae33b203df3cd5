// POST /email/withTemplate and /email/batchWithTemplates (docs/reference/templates.md, "Sending with a
// template"). The body is validated by src/domain/templates/send-with-template.ts and the sending area's accept
// path, each message on its own.
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { serverAuth, type App } from '../../types.js';
import { readIdempotencyKey } from '../../../domain/accepting/accept.js';
import { MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, MAX_SINGLE_REQUEST_BYTES } from '../../../domain/accepting/limits.js';
import { sendWithTemplates } from '../../../domain/templates/send-with-template.js';
import { OutgoingMessageSchema, SendResultSchema } from '../email/schemas.js';

const documentOnly = () => (data: unknown) => ({ value: data });
const config = { auth: 'server', allowTestToken: true, validationErrorCode: ErrorCode.InvalidEmailRequest } as const;

const TemplateMessage = Type.Object({
  ...OutgoingMessageSchema.properties,
  TemplateId: Type.Optional(Type.Integer()),
  TemplateAlias: Type.Optional(Type.String()),
  TemplateModel: Type.Optional(Type.Object({}, { additionalProperties: true })),
  InlineCss: Type.Optional(Type.Boolean({ default: true })),
});

export default async function templateSendRoutes(app: App, ctx: AppContext): Promise<void> {
  app.post(
    '/email/withTemplate',
    {
      config,
      bodyLimit: MAX_SINGLE_REQUEST_BYTES,
      validatorCompiler: documentOnly,
      schema: { tags: ['templates', 'sending'], security: [{ serverToken: [] }], body: TemplateMessage, response: { 200: SendResultSchema } },
    },
    async (req) => {
      const body: unknown = req.body;
      const idempotency = readIdempotencyKey(req.headers['idempotency-key'], '/email/withTemplate', body);
      const [o] = await sendWithTemplates(ctx, serverAuth(req.auth), [body], idempotency);
      if (o.result.ErrorCode !== 0) throw new ApiError(o.result.ErrorCode, o.result.Message, o.status);
      return o.result;
    },
  );

  app.post(
    '/email/batchWithTemplates',
    {
      config,
      bodyLimit: MAX_BATCH_BYTES,
      validatorCompiler: documentOnly,
      schema: {
        tags: ['templates', 'sending'],
        security: [{ serverToken: [] }],
        body: Type.Object({ Messages: Type.Array(TemplateMessage, { maxItems: MAX_BATCH_MESSAGES }) }),
        response: { 200: Type.Array(SendResultSchema) },
      },
    },
    async (req) => {
      const body = req.body as { Messages?: unknown } | null;
      const messages = body && typeof body === 'object' ? body.Messages : undefined;
      if (!Array.isArray(messages)) throw new ApiError(ErrorCode.InvalidEmailRequest, "The request body must be an object with a 'Messages' array.");
      if (messages.length > MAX_BATCH_MESSAGES) {
        throw new ApiError(ErrorCode.TooManyBatchMessages, `A batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${messages.length}.`);
      }
      const idempotency = readIdempotencyKey(req.headers['idempotency-key'], '/email/batchWithTemplates', body);
      const outcomes = await sendWithTemplates(ctx, serverAuth(req.auth), messages, idempotency);
      return outcomes.map((o) => o.result);
    },
  );
}
