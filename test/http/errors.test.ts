import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../helpers/service.js';

describe('error model and request handling', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('unknown routes are 404 with the error body', async () => {
    const r = await s.request('GET', '/no/such/route');
    assert.equal(r.status, 404);
    assert.equal(typeof r.body.ErrorCode, 'number');
    assert.equal(typeof r.body.Message, 'string');
  });

  it('broken JSON is 422 with ErrorCode 402', async () => {
    const r = await s.request('PUT', '/server', { raw: '{"Name": ' });
    assert.equal(r.status, 422);
    assert.equal(r.body.ErrorCode, 402);
  });

  it('a non-JSON body is 415 with ErrorCode 409', async () => {
    const r = await s.request('PUT', '/server', { raw: 'Name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(r.status, 415);
    assert.equal(r.body.ErrorCode, 409);
  });

  it('wrong types are 422 naming the field', async () => {
    const r = await s.request('PUT', '/server', { body: { TrackOpens: 'maybe' } });
    assert.equal(r.status, 422);
    assert.equal(r.body.ErrorCode, 403);
    assert.match(r.body.Message, /TrackOpens/);
  });

  it('NUL characters and unpaired surrogates are refused, not stored', async () => {
    for (const raw of ['{"Name":"a\\u0000b"}', '{"Name":"a\\ud800b"}', '{"Name":"\\udc00"}']) {
      const r = await s.request('PUT', '/server', { raw });
      assert.equal(r.status, 422, raw);
      assert.equal(r.body.ErrorCode, 402);
    }
    const ok = await s.request('PUT', '/server', { body: { Name: 'Emoji 😀 server' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.Name, 'Emoji 😀 server');
  });

  it('oversize bodies are 413 before parsing', async () => {
    const r = await s.request('PUT', '/server', { raw: `{"Name":"${'x'.repeat(2 * 1024 * 1024)}"}` });
    assert.equal(r.status, 413);
    assert.equal(typeof r.body.ErrorCode, 'number');
  });

  it('paths are case-insensitive and tolerate a trailing slash', async () => {
    assert.equal((await s.request('GET', '/SERVER/')).status, 200);
    assert.equal((await s.request('GET', '/Server')).status, 200);
  });

  it('deeply nested JSON is refused, not a crash', async () => {
    const raw = `{"Name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const r = await s.request('PUT', '/server', { raw });
    assert.equal(r.status, 422);
  });

  it('serves the OpenAPI document and a health check', async () => {
    const o = await s.request('GET', '/openapi.json', { token: null });
    assert.equal(o.status, 200);
    assert.equal(o.body.openapi, '3.0.3');
    assert.ok(o.body.paths['/server']);
    const h = await s.request('GET', '/healthz', { token: null });
    assert.deepEqual(h.body, { status: 'ok' });
  });
});
