// POST /data-removals and GET /data-removals/{id} (account token): shapes of the hosted service's
// DataRemovalRequest / DataRemovalStatus. Thin: the rules live in src/domain/data-removals/.
import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import { getDataRemoval, requestDataRemoval } from '../../../domain/data-removals/request.js';
import { RowId } from '../../pagination.js';
import { accountAuth, type App } from '../../types.js';

const base = { tags: ['data-removals'], security: [{ accountToken: [] }] };
const config = { auth: 'account' } as const;
const Status = Type.Object({ ID: Type.Integer(), Status: Type.String() });

export default async function dataRemovalRoutes(app: App, ctx: AppContext): Promise<void> {
  app.post(
    '/data-removals',
    {
      config,
      schema: {
        ...base,
        body: Type.Object({
          RequestedBy: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])),
          RequestedFor: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])),
          NotifyWhenCompleted: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        }),
        response: { 200: Status },
      },
    },
    async (req) => requestDataRemoval(ctx, accountAuth(req.auth).accountId, req.body),
  );

  app.get('/data-removals/:id', { config, schema: { ...base, params: Type.Object({ id: RowId() }), response: { 200: Status } } }, async (req) => {
    const r = await getDataRemoval(ctx, accountAuth(req.auth).accountId, req.params.id);
    return { ID: r.ID, Status: r.Status };
  });
}
