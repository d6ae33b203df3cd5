// Token authentication (docs/reference/api-conventions.md, "Authentication"). Server and account tokens are not
// interchangeable; header names and values are case-insensitive; the hosted service's header names are
// accepted as aliases so its SDKs work unchanged.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../domain/app-context.js';
import { ApiError, ErrorCode } from '../domain/errors.js';
import { TokenResolver } from '../domain/tokens/token-resolver.js';
import type { App } from './types.js';

const SERVER_HEADERS = ['x-service-server-token', 'x-postmark-server-token'];
const ACCOUNT_HEADERS = ['x-service-account-token', 'x-postmark-account-token'];
const TEST_TOKENS = new Set(['service_api_test', 'postmark_api_test']);

function header(req: FastifyRequest, names: string[]): string | null {
  for (const n of names) {
    const v = req.headers[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (typeof s === 'string' && s.trim() !== '') return s.trim();
  }
  return null;
}

export function registerAuth(app: App, ctx: AppContext): void {
  // No cache in front of the token table (see token-resolver.ts): revocation takes effect at once in every
  // process, and concurrent requests share one lookup.
  const tokens = new TokenResolver(ctx.db);

  app.decorateRequest('auth', null as any);
  app.addHook('onRequest', async (req) => {
    const need = req.routeOptions.config?.auth ?? 'none';
    if (need === 'none') {
      req.auth = { kind: 'none' };
      return;
    }
    if (need === 'server') {
      const value = header(req, SERVER_HEADERS);
      if (!value) throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Server token (X-Service-Server-Token header).');
      if (TEST_TOKENS.has(value.toLowerCase()) && req.routeOptions.config?.allowTestToken) {
        // Test mode validates against the first server, and stores and sends nothing. Looked up each time
        // (test sends are rare), so a deleted first server is never used.
        const s = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').limit(1).executeTakeFirst();
        if (s) {
          req.auth = { kind: 'server', accountId: s.account_id, serverId: s.id, testMode: true };
          return;
        }
      }
      const t = await tokens.resolve(value);
      if (!t || t.kind !== 'server' || t.serverId === null)
        throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Server token.');
      req.auth = { kind: 'server', accountId: t.accountId, serverId: t.serverId, testMode: false };
      return;
    }
    const value = header(req, ACCOUNT_HEADERS);
    if (!value) throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Account token (X-Service-Account-Token header).');
    const t = await tokens.resolve(value);
    if (!t || t.kind !== 'account') throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Account token.');
    req.auth = { kind: 'account', accountId: t.accountId };
  });
}
