import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';

describe('GET/PUT /server', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('shows the published fields', async () => {
    const r = await s.request('GET', '/server');
    for (const k of ['ID', 'Name', 'ApiTokens', 'Color', 'DeliveryType', 'TrackOpens', 'TrackLinks', 'InboundHash', 'BounceHookUrl']) {
      assert.ok(k in r.body, k);
    }
    assert.equal(r.body.DeliveryType, 'Live');
    assert.deepEqual(r.body.ApiTokens, [`…${s.serverToken.slice(-4)}`]);
  });

  it('updates settings and keeps them', async () => {
    const r = await s.request('PUT', '/server', { body: { Color: 'green', TrackOpens: true, TrackLinks: 'HtmlOnly', RetentionDays: 30 } });
    assert.equal(r.status, 200);
    assert.equal(r.body.Color, 'green', 'matched in any case, answered as the client wrote it (the Ruby gem reads it back)');
    assert.equal(r.body.TrackOpens, true);
    assert.equal(r.body.TrackLinks, 'HtmlOnly');
    assert.equal(r.body.RetentionDays, 30);
    const again = await s.request('GET', '/server');
    assert.equal(again.body.Color, 'green');
    assert.equal((await s.request('PUT', '/server', { body: { Color: 'Red' } })).body.Color, 'Red', 'the published spelling, as the Python client sends it');
  });

  it('refuses bad values with their published codes', async () => {
    assert.equal((await s.request('PUT', '/server', { body: { Color: 'Magenta' } })).body.ErrorCode, 607);
    assert.equal((await s.request('PUT', '/server', { body: { Name: '  ' } })).body.ErrorCode, 608);
    assert.equal((await s.request('PUT', '/server', { body: { BounceHookUrl: 'ftp://x' } })).body.ErrorCode, 606);
    for (const RetentionDays of [6, 366]) {
      const r = await s.request('PUT', '/server', { body: { RetentionDays } });
      assert.equal(r.status, 422);
    }
    for (const RetentionDays of [7, 365]) {
      assert.equal((await s.request('PUT', '/server', { body: { RetentionDays } })).status, 200);
    }
  });

  it('has its three default streams', async () => {
    const rows = await s.ctx.db.selectFrom('message_streams').select(['id', 'type']).where('server_id', '=', s.serverId).orderBy('id').execute();
    assert.deepEqual(rows, [
      { id: 'broadcast', type: 'Broadcasts' },
      { id: 'inbound', type: 'Inbound' },
      { id: 'outbound', type: 'Transactional' },
    ]);
  });
});
