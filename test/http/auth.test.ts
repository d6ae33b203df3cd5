import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../helpers/service.js';

describe('authentication', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('answers the server for its server token', async () => {
    const r = await s.request('GET', '/server');
    assert.equal(r.status, 200);
    assert.equal(r.body.Name, 'Default');
    assert.equal(r.body.ID, s.serverId);
  });

  it('401 with the error body for a missing or wrong token', async () => {
    for (const token of [null, 'wrong-token', '']) {
      const r = await s.request('GET', '/server', { token });
      assert.equal(r.status, 401);
      assert.equal(r.body.ErrorCode, 10);
      assert.equal(typeof r.body.Message, 'string');
    }
  });

  it('token values and header names are case-insensitive', async () => {
    const r = await s.request('GET', '/server', { token: null, headers: { 'X-SERVICE-SERVER-TOKEN': s.serverToken.toUpperCase() } });
    assert.equal(r.status, 200);
  });

  it('accepts the hosted service header aliases', async () => {
    const r = await s.request('GET', '/server', { token: null, headers: { 'X-Postmark-Server-Token': s.serverToken } });
    assert.equal(r.status, 200);
  });

  it('account and server tokens are not interchangeable', async () => {
    const a = await s.request('GET', '/server', { token: s.accountToken });
    assert.equal(a.status, 401);
    const b = await s.request('GET', '/server', { token: null, headers: { 'x-service-account-token': s.accountToken } });
    assert.equal(b.status, 401);
  });

  it('the test token is not a key to ordinary routes', async () => {
    const r = await s.request('GET', '/server', { token: 'SERVICE_API_TEST' });
    assert.equal(r.status, 401);
  });

  it('stores only token digests', async () => {
    const rows = await s.ctx.db.selectFrom('api_tokens').select(['token_hash', 'hint']).execute();
    assert.ok(rows.length >= 2);
    for (const r of rows) {
      assert.match(r.token_hash, /^[0-9a-f]{64}$/);
      assert.notEqual(r.token_hash, s.serverToken);
    }
  });
});
