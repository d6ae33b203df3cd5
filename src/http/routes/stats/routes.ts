// Outbound statistics (docs/reference/statistics.md), read from the permanent daily counters.
import type { AppContext } from '../../../domain/app-context.js';
import { serverAuth, type App } from '../../types.js';
import { daySeries, outboundOverview, SERIES } from '../../../domain/stats/reports.js';
import { StatsQuery } from './schemas.js';

const base = { tags: ['statistics'], security: [{ serverToken: [] }], querystring: StatsQuery };

export default async function statsRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get('/stats/outbound', { config: { auth: 'server' }, schema: base }, async (req) =>
    outboundOverview(ctx.db, serverAuth(req.auth).serverId, req.query),
  );
  for (const name of Object.keys(SERIES)) {
    app.get(`/stats/outbound/${name}`, { config: { auth: 'server' }, schema: base }, async (req) =>
      daySeries(ctx.db, serverAuth(req.auth).serverId, name, req.query),
    );
  }
}
