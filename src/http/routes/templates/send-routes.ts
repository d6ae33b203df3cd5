// POST /email/withTemplate and /email/batchWithTemplates (docs/reference/templates.md, "Sending with a
// template"). The body is validated by src/domain/accepting/send-with-template.ts and the sending area's accept
// path, each message on its own.
import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import type { App } from '../../types.js';
import { MAX_BATCH_BYTES, MAX_BATCH_MESSAGES, MAX_SINGLE_REQUEST_BYTES } from '../../../domain/accepting/limits.js';
import { sendWithTemplates } from '../../../domain/accepting/send-with-template.js';
import { OutgoingMessageSchema, SendResultSchema } from '../email/schemas.js';
import { batchSend, documentOnly, sendRouteConfig as config, singleSend, type SendMessages } from '../email/send-handler.js';

const TemplateMessage = Type.Object({
  ...OutgoingMessageSchema.properties,
  TemplateId: Type.Optional(Type.Integer()),
  TemplateAlias: Type.Optional(Type.String()),
  TemplateModel: Type.Optional(Type.Object({}, { additionalProperties: true })),
  InlineCss: Type.Optional(Type.Boolean({ default: true })),
});

export default async function templateSendRoutes(app: App, ctx: AppContext): Promise<void> {
  const send: SendMessages = (auth, inputs, idempotency) => sendWithTemplates(ctx, auth, inputs, idempotency);
  app.post(
    '/email/withTemplate',
    {
      config,
      bodyLimit: MAX_SINGLE_REQUEST_BYTES,
      validatorCompiler: documentOnly,
      schema: { tags: ['templates', 'sending'], security: [{ serverToken: [] }], body: TemplateMessage, response: { 200: SendResultSchema } },
    },
    singleSend('/email/withTemplate', send),
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
    batchSend(
      '/email/batchWithTemplates',
      (body) => {
        const messages = body && typeof body === 'object' ? (body as { Messages?: unknown }).Messages : undefined;
        return Array.isArray(messages) ? messages : "The request body must be an object with a 'Messages' array.";
      },
      send,
    ),
  );
}
