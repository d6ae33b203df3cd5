import type { AppContext } from '../../../domain/app-context.js';
import { ErrorCode } from '../../../domain/errors.js';
import { serverAuth, type App } from '../../types.js';
import { activateBounce } from '../../../domain/bounces/activate.js';
import { bounceDump, deliveryStats, getBounce, listBounces, parseBounceId } from '../../../domain/bounces/query.js';
import { BounceIdParams, BounceListQuery } from './schemas.js';

const base = { tags: ['bounces'], security: [{ serverToken: [] }] };
const config = { auth: 'server', validationErrorCode: ErrorCode.BounceQueryError } as const;

/** Delivery stats and bounces of the token's server (docs/reference/bounces.md). */
export default async function bounceRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get('/deliverystats', { config, schema: base }, async (req) => deliveryStats(ctx, serverAuth(req.auth).serverId));

  app.get('/bounces', { config, schema: { ...base, querystring: BounceListQuery } }, async (req) =>
    listBounces(ctx, serverAuth(req.auth).serverId, req.query),
  );

  app.get('/bounces/:bounceid', { config, schema: { ...base, params: BounceIdParams } }, async (req) =>
    getBounce(ctx, serverAuth(req.auth).serverId, parseBounceId(req.params.bounceid)),
  );

  app.get('/bounces/:bounceid/dump', { config, schema: { ...base, params: BounceIdParams } }, async (req) =>
    bounceDump(ctx, serverAuth(req.auth).serverId, parseBounceId(req.params.bounceid)),
  );

  app.put('/bounces/:bounceid/activate', { config, schema: { ...base, params: BounceIdParams } }, async (req) =>
    activateBounce(ctx, serverAuth(req.auth).serverId, parseBounceId(req.params.bounceid)),
  );
}
