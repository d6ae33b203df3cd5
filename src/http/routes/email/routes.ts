import type { AppContext } from '../../../domain/app-context.js';
import type { App } from '../../types.js';
import { acceptMessages } from '../../../domain/accepting/accept.js';
import { MAX_BATCH_BYTES, MAX_SINGLE_REQUEST_BYTES } from '../../../domain/accepting/limits.js';
import { BatchBodySchema, BatchResultSchema, OutgoingMessageSchema, SendResultSchema } from './schemas.js';
import { batchSend, documentOnly, sendRouteConfig as config, singleSend } from './send-handler.js';

/** POST /email and /email/batch (docs/reference/sending.md). */
export default async function emailRoutes(app: App, ctx: AppContext): Promise<void> {
  // On shutdown, requests already handed to the sending batcher are committed before the database closes.
  app.addHook('onClose', () => ctx.sendBatcher.drain());
  app.post(
    '/email',
    {
      config,
      bodyLimit: MAX_SINGLE_REQUEST_BYTES,
      validatorCompiler: documentOnly,
      schema: { tags: ['sending'], security: [{ serverToken: [] }], body: OutgoingMessageSchema, response: { 200: SendResultSchema } },
    },
    singleSend('/email', (auth, inputs, idempotency) => acceptMessages(ctx, auth, inputs, { allowTemplateModel: true, idempotency })),
  );

  app.post(
    '/email/batch',
    {
      config,
      bodyLimit: MAX_BATCH_BYTES,
      validatorCompiler: documentOnly,
      schema: { tags: ['sending'], security: [{ serverToken: [] }], body: BatchBodySchema, response: { 200: BatchResultSchema } },
    },
    batchSend(
      '/email/batch',
      (body) => (Array.isArray(body) ? body : 'The request body must be a JSON array of messages.'),
      (auth, inputs, idempotency) => acceptMessages(ctx, auth, inputs, { idempotency }),
    ),
  );
}
