// Token authentication (specification, "Authentication"). Server and account tokens are not
// interchangeable; header names and values are case-insensitive; the hosted service's header names are
// accepted as aliases so its SDKs work unchanged.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { resolveToken, type ResolvedToken } from '../tokens/tokens.js';
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

/** A small cache in front of the token table: the hot sending path should not query it on every request.
 * Entries live briefly so that a revoked token stops working within seconds. */
class TokenCache {
  private readonly map = new Map<string, { value: ResolvedToken | null; until: number }>();
  constructor(private readonly ttlMs = 5000, private readonly max = 10_000) {}
  get(key: string, now: number) {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.until < now) {
      this.map.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: ResolvedToken | null, now: number) {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, { value, until: now + this.ttlMs });
  }
}

export function registerAuth(app: App, ctx: AppContext): void {
  const cache = new TokenCache();
  const lookup = async (value: string): Promise<ResolvedToken | null> => {
    const key = value.toLowerCase();
    const now = Date.now();
    const hit = cache.get(key, now);
    if (hit !== undefined) return hit;
    const found = await resolveToken(ctx.db, value);
    cache.set(key, found, now);
    return found;
  };
  let testServer: { accountId: number; serverId: number } | null = null;

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
        // Test mode validates against the first server of the account, and stores and sends nothing.
        if (!testServer) {
          const s = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').limit(1).executeTakeFirst();
          if (s) testServer = { accountId: s.account_id, serverId: s.id };
        }
        if (testServer) {
          req.auth = { kind: 'server', ...testServer, testMode: true };
          return;
        }
      }
      const t = await lookup(value);
      if (!t || t.kind !== 'server' || t.serverId === null)
        throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Server token.');
      req.auth = { kind: 'server', accountId: t.accountId, serverId: t.serverId, testMode: false };
      return;
    }
    const value = header(req, ACCOUNT_HEADERS);
    if (!value) throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Account token (X-Service-Account-Token header).');
    const t = await lookup(value);
    if (!t || t.kind !== 'account') throw new ApiError(ErrorCode.BadToken, 'Request does not contain a valid Account token.');
    req.auth = { kind: 'account', accountId: t.accountId };
  });
}
