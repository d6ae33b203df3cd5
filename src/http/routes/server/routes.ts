import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { serverAuth, type App } from '../../types.js';
import { serverSettingsPatch } from '../../../domain/servers/server-settings.js';
import { serverView } from '../../../domain/servers/server-view.js';
import { ServerSettingsBody } from './schemas.js';

/** GET/PUT /server: the server that owns the token (docs/reference/servers.md). */
export default async function serverRoutes(app: App, ctx: AppContext): Promise<void> {
  const load = async (serverId: number) => {
    const row = await ctx.db.selectFrom('servers').selectAll().where('id', '=', serverId).executeTakeFirst();
    if (!row) throw new ApiError(ErrorCode.ServerNotFound, 'Server not found.');
    const hints = await ctx.db.selectFrom('api_tokens').select('hint').where('server_id', '=', serverId).orderBy('id').execute();
    return serverView(row, ctx.config, hints.map((h) => h.hint));
  };

  app.get(
    '/server',
    { config: { auth: 'server' }, schema: { tags: ['servers'], security: [{ serverToken: [] }], response: { 200: Type.Object({}, { additionalProperties: true }) } } },
    async (req) => load(serverAuth(req.auth).serverId),
  );

  app.put(
    '/server',
    { config: { auth: 'server' }, schema: { tags: ['servers'], security: [{ serverToken: [] }], body: ServerSettingsBody } },
    async (req) => {
      const { serverId, accountId } = serverAuth(req.auth);
      const patch = serverSettingsPatch(req.body ?? {});
      if (Object.keys(patch).length > 0) {
        if (patch.name) {
          const clash = await ctx.db
            .selectFrom('servers')
            .select('id')
            .where('account_id', '=', accountId)
            .where('name', '=', patch.name)
            .where('id', '!=', serverId)
            .executeTakeFirst();
          if (clash) throw new ApiError(ErrorCode.ServerNameExists, `A server named '${patch.name}' already exists.`);
        }
        await ctx.db.updateTable('servers').set(patch).where('id', '=', serverId).execute();
      }
      return load(serverId);
    },
  );
}
