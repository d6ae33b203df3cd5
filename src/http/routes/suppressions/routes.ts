// Suppressions of one stream (docs/reference/suppressions.md). Per-item failures come back with HTTP 200.
import type { AppContext } from '../../../domain/app-context.js';
import { serverAuth, type App } from '../../types.js';
import { getStream } from '../../../domain/streams/find-stream.js';
import { suppressAddresses, unsuppressAddresses } from '../../../domain/suppressions/change.js';
import { dumpSuppressions } from '../../../domain/suppressions/dump.js';
import { ChangeBody, ChangeResponse, DumpQuery, DumpResponse, SuppressionParams } from './schemas.js';

const base = { tags: ['suppressions'], security: [{ serverToken: [] }] };

export default async function suppressionRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    '/message-streams/:id/suppressions/dump',
    { config: { auth: 'server' }, schema: { ...base, params: SuppressionParams, querystring: DumpQuery, response: { 200: DumpResponse } } },
    async (req) => {
      const { serverId } = serverAuth(req.auth);
      const stream = await getStream(ctx.db, serverId, req.params.id);
      const q = req.query;
      const list = await dumpSuppressions(ctx.db, serverId, stream.id, {
        suppressionReason: q.suppressionreason,
        origin: q.origin,
        fromDate: q.fromdate,
        toDate: q.todate,
        emailAddress: q.emailaddress,
      });
      return { Suppressions: list };
    },
  );

  app.post(
    '/message-streams/:id/suppressions',
    { config: { auth: 'server' }, schema: { ...base, params: SuppressionParams, body: ChangeBody, response: { 200: ChangeResponse } } },
    async (req) => {
      const { serverId } = serverAuth(req.auth);
      const stream = await getStream(ctx.db, serverId, req.params.id);
      return { Suppressions: await suppressAddresses(ctx, serverId, stream.id, req.body.Suppressions) };
    },
  );

  app.post(
    '/message-streams/:id/suppressions/delete',
    { config: { auth: 'server' }, schema: { ...base, params: SuppressionParams, body: ChangeBody, response: { 200: ChangeResponse } } },
    async (req) => {
      const { serverId } = serverAuth(req.auth);
      const stream = await getStream(ctx.db, serverId, req.params.id);
      return { Suppressions: await unsuppressAddresses(ctx, serverId, stream.id, req.body.Suppressions) };
    },
  );
}
