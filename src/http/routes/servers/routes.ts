// The account's servers (docs/reference/servers.md). Thin: the rules live in src/domain/servers/.
import type { AppContext } from '../../../domain/app-context.js';
import { accountAuth, type App } from '../../types.js';
import {
  createAccountServer,
  deleteAccountServer,
  getAccountServer,
  listServers,
  tokenHints,
  updateAccountServer,
  type ServerRow,
} from '../../../domain/servers/account-servers.js';
import { readLegacyHooks } from '../../../domain/servers/legacy-hooks.js';
import { serverView } from '../../../domain/servers/server-view.js';
import { ListServersQuery, ServerBody, ServerParams } from './schemas.js';

const base = { tags: ['servers'], security: [{ accountToken: [] }] };
const config = { auth: 'account' } as const;

export default async function serversRoutes(app: App, ctx: AppContext): Promise<void> {
  const view = async (row: ServerRow, tokens?: string[]) =>
    serverView(row, ctx.config, tokens ?? (await tokenHints(ctx.db, [row.id])).get(row.id) ?? [], await readLegacyHooks(ctx.db, row.id));

  app.get('/servers', { config, schema: { ...base, querystring: ListServersQuery } }, async (req) => {
    const { accountId } = accountAuth(req.auth);
    const { total, rows } = await listServers(ctx, accountId, { count: req.query.count, offset: req.query.offset ?? 0, name: req.query.name });
    const hints = await tokenHints(ctx.db, rows.map((r) => r.id));
    const servers = [];
    for (const r of rows) servers.push(serverView(r, ctx.config, hints.get(r.id) ?? [], await readLegacyHooks(ctx.db, r.id)));
    return { TotalCount: total, Servers: servers };
  });

  app.post('/servers', { config, schema: { ...base, body: ServerBody } }, async (req) => {
    const { row, token } = await createAccountServer(ctx, accountAuth(req.auth).accountId, req.body);
    // The only time the token value is shown: it is stored as a digest.
    return view(row, [token]);
  });

  app.get('/servers/:id', { config, schema: { ...base, params: ServerParams } }, async (req) =>
    view(await getAccountServer(ctx.db, accountAuth(req.auth).accountId, req.params.id)),
  );

  app.put('/servers/:id', { config, schema: { ...base, params: ServerParams, body: ServerBody } }, async (req) =>
    view(await updateAccountServer(ctx, accountAuth(req.auth).accountId, req.params.id, req.body)),
  );

  app.delete('/servers/:id', { config, schema: { ...base, params: ServerParams } }, async (req) => {
    const row = await deleteAccountServer(ctx, accountAuth(req.auth).accountId, req.params.id);
    return { ErrorCode: 0, Message: `Server ${row.name} removed.` };
  });
}
