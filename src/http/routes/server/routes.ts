import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import { serverAuth, type App } from '../../types.js';
import { getAccountServer, tokenHints, updateAccountServer, type ServerRow } from '../../../domain/servers/account-servers.js';
import { readLegacyHooks } from '../../../domain/servers/legacy-hooks.js';
import { serverView } from '../../../domain/servers/server-view.js';
import { ServerSettingsBody } from './schemas.js';

/**
 * GET/PUT /server: the server that owns the token (docs/reference/servers.md); the same domain calls as the
 * account's /servers/{id}, scoped to the token's server (its name checked in the update's transaction).
 */
export default async function serverRoutes(app: App, ctx: AppContext): Promise<void> {
  const view = async (row: ServerRow) =>
    serverView(row, ctx.config, (await tokenHints(ctx.db, [row.id])).get(row.id) ?? [], await readLegacyHooks(ctx.db, row.id));

  app.get(
    '/server',
    { config: { auth: 'server' }, schema: { tags: ['servers'], security: [{ serverToken: [] }], response: { 200: Type.Object({}, { additionalProperties: true }) } } },
    async (req) => {
      const { accountId, serverId } = serverAuth(req.auth);
      return view(await getAccountServer(ctx.db, accountId, serverId));
    },
  );

  app.put(
    '/server',
    { config: { auth: 'server' }, schema: { tags: ['servers'], security: [{ serverToken: [] }], body: ServerSettingsBody } },
    async (req) => {
      const { serverId, accountId } = serverAuth(req.auth);
      // The settings only: a server token cannot change its server's DeliveryType (it is not in the schema).
      const { DeliveryType: _ignored, ...settings } = (req.body ?? {}) as { DeliveryType?: unknown };
      return view(await updateAccountServer(ctx, accountId, serverId, settings));
    },
  );
}
