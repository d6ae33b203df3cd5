// POST /email/bulk and GET /email/bulk/{id} (server token): the hosted service's Bulk API, shapes of its
// client's BulkEmailSendingResponse and BulkEmailStatusResponse. Thin: the rules live in src/domain/bulk/.
import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import { submitBulk } from '../../../domain/bulk/accept.js';
import { getBulkStatus } from '../../../domain/bulk/status.js';
import { MAX_BATCH_BYTES } from '../../../domain/accepting/limits.js';
import { ErrorCode } from '../../../domain/errors.js';
import { serverAuth, type App } from '../../types.js';
import { BulkBodySchema } from './schemas.js';

const base = { tags: ['sending'], security: [{ serverToken: [] }] };
const Status = Type.Union([Type.Literal('Accepted'), Type.Literal('Processing'), Type.Literal('Completed'), Type.Literal('Failed')]);
// The body is validated by the domain (src/domain/bulk/validate.ts), entry by entry: the schema documents it.
const documentOnly = () => (data: unknown) => ({ value: data });

export default async function bulkRoutes(app: App, ctx: AppContext): Promise<void> {
  app.post(
    '/email/bulk',
    {
      config: { auth: 'server', allowTestToken: true, validationErrorCode: ErrorCode.InvalidEmailRequest },
      // The hosted service's payload limit for a bulk request, attachments included: 50 MB.
      bodyLimit: MAX_BATCH_BYTES,
      validatorCompiler: documentOnly,
      schema: {
        ...base,
        body: BulkBodySchema,
        response: { 200: Type.Object({ Id: Type.String(), ID: Type.String(), Status, SubmittedAt: Type.String() }) },
      },
    },
    async (req) => submitBulk(ctx, serverAuth(req.auth), req.body),
  );

  app.get(
    '/email/bulk/:id',
    {
      config: { auth: 'server' },
      schema: {
        ...base,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: {
          200: Type.Object({
            Id: Type.String(),
            Status,
            SubmittedAt: Type.String(),
            TotalMessages: Type.Integer(),
            PercentageCompleted: Type.Number(),
            Subject: Type.String(),
            FailureReason: Type.Optional(Type.String()),
          }),
        },
      },
    },
    async (req) => getBulkStatus(ctx, serverAuth(req.auth).serverId, req.params.id),
  );
}
