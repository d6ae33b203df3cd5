// Token revocation: a deleted server's token is refused with 401 by the very next request, in the process
// that deleted it and in another process sharing the database; a newly issued token works at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createContext, type AppContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import type { App } from '../../src/http/types.js';
import { createLogger } from '../../src/infra/logger.js';
import { issueToken } from '../../src/domain/tokens/issue.js';
import { TokenResolver } from '../../src/domain/tokens/token-resolver.js';
import { hashToken, storeToken } from '../../src/domain/tokens/tokens.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';

const FROM = 'sender@revoke.example';

/** A second API process on the same database: its own context, pool and HTTP listener. */
async function secondProcess(s: TestService): Promise<{ ctx: AppContext; app: App; url: string; close(): Promise<void> }> {
  const ctx = createContext(s.config, {
    clock: s.clock,
    logger: createLogger('silent'),
    dbOptions: s.ctx.database.dialect === 'postgres' ? { schema: s.ctx.database.schema, poolSize: 2 } : {},
    secretKey: 'test-secret-key-test-secret-key-0123456789',
  });
  const app = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return {
    ctx,
    app,
    url,
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}

describe('token revocation', () => {
  let s: TestService;
  let other: Awaited<ReturnType<typeof secondProcess>>;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    other = await secondProcess(s);
  });
  after(async () => {
    await other.close();
    await s.close();
  });

  const acct = (method: string, path: string, body?: unknown) => s.request(method, path, { accountToken: s.accountToken, body });
  const send = { From: FROM, To: 'someone@recipient.example', Subject: 'Hi', TextBody: 'Hello' };

  /** The same request against a base URL (this process or the other one). */
  async function call(base: string, token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(base + path, {
      method,
      headers: { accept: 'application/json', 'x-service-server-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as { ErrorCode?: number; [k: string]: unknown } };
  }

  const routes: Array<[method: string, path: string, body?: unknown]> = [
    ['GET', '/server'],
    ['POST', '/email', send],
    ['POST', '/email/batch', [send]],
    ['GET', '/bounces?count=10&offset=0'],
    ['GET', '/messages?count=10&offset=0'],
    ['GET', '/message-streams'],
  ];

  async function newServer(name: string): Promise<{ id: number; token: string }> {
    const c = await acct('POST', '/servers', { Name: name });
    assert.equal(c.status, 200, c.text);
    return { id: c.body.ID, token: c.body.ApiTokens[0] };
  }

  for (const [where, base] of [
    ['the process that deletes', () => s.url],
    ['another process sharing the database', () => other.url],
  ] as const) {
    it(`refuses a deleted server's token with 401 at once in ${where}`, async () => {
      const { id, token } = await newServer(`Doomed ${where}`);
      // Every route works with the token first (and would have warmed any per-process cache).
      for (const [method, path, body] of routes) {
        const r = await call(base(), token, method, path, body);
        assert.equal(r.status, 200, `${method} ${path} before: ${JSON.stringify(r.body)}`);
      }
      const del = await acct('DELETE', `/servers/${id}`);
      assert.equal(del.status, 200, del.text);
      for (const [method, path, body] of routes) {
        const r = await call(base(), token, method, path, body);
        assert.equal(r.status, 401, `${method} ${path} after: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.ErrorCode, 10);
      }
      // The account's other servers are untouched.
      assert.equal((await call(base(), s.serverToken, 'GET', '/server')).status, 200);
    });
  }

  it('a newly issued token works at once in every process, and the earlier ones keep working', async () => {
    const { id, token } = await newServer('Issued');
    const chosen = 'chosen-token-value-0000000000000001';
    // Refused before it exists (a negative cache would keep refusing it after it is issued).
    for (const base of [s.url, other.url]) assert.equal((await call(base, chosen, 'GET', '/server')).status, 401);
    await storeToken(s.ctx.db, { kind: 'server', accountId: s.accountId, serverId: id, value: chosen, now: s.clock.now() });
    const issued = await issueToken(s.ctx, 'server', id);
    for (const base of [s.url, other.url]) {
      for (const t of [chosen, issued, token]) {
        const r = await call(base, t, 'GET', '/server');
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.ID, id);
      }
    }
    // GET /server lists hints of all three.
    const hints = (await call(s.url, token, 'GET', '/server')).body.ApiTokens as string[];
    assert.equal(hints.length, 3);
    // An issued account token works at once too, and only as an account token.
    const acctToken = await issueToken(s.ctx, 'account');
    assert.equal((await s.request('GET', '/servers?count=1&offset=0', { accountToken: acctToken })).status, 200);
    assert.equal((await call(s.url, acctToken, 'GET', '/server')).status, 401);
    // Deleting the server revokes every one of its tokens.
    assert.equal((await acct('DELETE', `/servers/${id}`)).status, 200);
    for (const t of [chosen, issued, token]) assert.equal((await call(other.url, t, 'GET', '/server')).status, 401);
    assert.equal(await s.ctx.db.selectFrom('api_tokens').select('id').where('server_id', '=', id).executeTakeFirst(), undefined);
  });

  it('the test token validates against the first server that still exists (runs last: deletes Default)', async () => {
    const before = await call(s.url, 'SERVICE_API_TEST', 'POST', '/email', send);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.Message, 'Test job accepted');
    await newServer('Next in line');
    assert.equal((await acct('DELETE', `/servers/${s.serverId}`)).status, 200);
    const after = await call(s.url, 'SERVICE_API_TEST', 'POST', '/email', send);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.Message, 'Test job accepted');
    assert.equal((await call(s.url, s.serverToken, 'GET', '/server')).status, 401);
  });
});

describe('TokenResolver', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('resolves concurrent lookups with one query per group, each to its own answer', async () => {
    const r = new TokenResolver(s.ctx.db);
    const values = [s.serverToken, s.accountToken.toUpperCase(), 'unknown-token-000000000000000001'];
    const asked = Array.from({ length: 300 }, (_, i) => values[i % 3]);
    const answers = await Promise.all(asked.map((v) => r.resolve(v)));
    for (const [i, a] of answers.entries()) {
      if (i % 3 === 0) assert.deepEqual(a, { kind: 'server', accountId: s.accountId, serverId: s.serverId });
      if (i % 3 === 1) assert.deepEqual(a, { kind: 'account', accountId: s.accountId, serverId: null });
      if (i % 3 === 2) assert.equal(a, null);
    }
    assert.equal(r.queries, 1);
  });

  it('splits more distinct tokens than one query takes, and sees a deletion in the next lookup', async () => {
    const r = new TokenResolver(s.ctx.db);
    const many = Array.from({ length: 600 }, (_, i) => `missing-token-${String(i).padStart(20, '0')}`);
    const answers = await Promise.all([...many, s.serverToken].map((v) => r.resolve(v)));
    assert.equal(answers.filter((a) => a !== null).length, 1);
    assert.ok(r.queries >= 3, `${r.queries} queries`);

    const doomed = 'doomed-token-value-00000000000000001';
    await storeToken(s.ctx.db, { kind: 'server', accountId: s.accountId, serverId: s.serverId, value: doomed, now: s.clock.now() });
    assert.equal((await r.resolve(doomed))?.serverId, s.serverId);
    await s.ctx.db.deleteFrom('api_tokens').where('token_hash', '=', hashToken(doomed)).execute();
    assert.equal(await r.resolve(doomed), null);
  });

  it('fails every waiter of a group when the database fails, and recovers', async () => {
    const broken = new TokenResolver({
      selectFrom: () => {
        throw new Error('database unreachable');
      },
    } as never);
    const results = await Promise.allSettled([broken.resolve('a-token-value-00000001'), broken.resolve('a-token-value-00000002')]);
    assert.deepEqual(
      results.map((x) => x.status),
      ['rejected', 'rejected'],
    );
    const r = new TokenResolver(s.ctx.db);
    assert.equal((await r.resolve(s.serverToken))?.serverId, s.serverId);
  });
});
