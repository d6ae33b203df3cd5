import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { startService, type TestService } from '../../helpers/service.js';

const DAY = 24 * 60 * 60 * 1000;

describe('message streams API', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  const create = (body: unknown, token?: string) => s.request('POST', '/message-streams', { body, token });
  const code = async (p: Promise<{ body: any; status: number }>) => {
    const r = await p;
    return r.status === 200 ? 0 : r.body.ErrorCode;
  };

  it('lists the three default streams with the published fields', async () => {
    const r = await s.request('GET', '/message-streams');
    assert.equal(r.status, 200);
    assert.equal(r.body.TotalCount, 3);
    assert.deepEqual(r.body.MessageStreams.map((m: any) => m.ID).sort(), ['broadcast', 'inbound', 'outbound']);
    const out = r.body.MessageStreams.find((m: any) => m.ID === 'outbound');
    assert.equal(out.ServerID, s.serverId);
    assert.equal(out.MessageStreamType, 'Transactional');
    assert.equal(out.ArchivedAt, null);
    assert.equal(out.ExpectedPurgeDate, null);
    assert.match(out.CreatedAt, /^\d{4}-\d\d-\d\dT.*\+00:00$/);
    assert.deepEqual(out.SubscriptionManagementConfiguration, { UnsubscribeHandlingType: 'None' });
    const b = r.body.MessageStreams.find((m: any) => m.ID === 'broadcast');
    assert.equal(b.SubscriptionManagementConfiguration.UnsubscribeHandlingType, 'Postmark');
  });

  it('filters by type (query keys in any case) and refuses an unknown type with 1221', async () => {
    const r = await s.request('GET', '/message-streams?MessageStreamType=Broadcasts');
    assert.deepEqual(r.body.MessageStreams.map((m: any) => m.ID), ['broadcast']);
    const inbound = await s.request('GET', '/message-streams?messagestreamtype=inbound');
    assert.deepEqual(inbound.body.MessageStreams.map((m: any) => m.ID), ['inbound']);
    assert.equal((await s.request('GET', '/message-streams?messageStreamType=All')).body.TotalCount, 3);
    assert.equal((await s.request('GET', '/message-streams?messageStreamType=')).body.TotalCount, 3);
    const doc = await s.request('GET', '/openapi.json', { token: null });
    assert.ok(doc.body.paths['/message-streams/{id}/suppressions/dump'] && doc.body.paths['/unsubscribe/{token}']);
    assert.equal(await code(s.request('GET', '/message-streams?MessageStreamType=Promotional')), 1221);
    assert.equal((await s.request('GET', '/message-streams?IncludeArchivedStreams=maybe')).status, 422);
  });

  it('creates with the sample form and the field-table form, deriving an ID from the Name', async () => {
    const a = await create({ ID: 'news-letter_1', Name: 'Newsletter', MessageStreamType: 'Broadcasts', Description: 'Monthly news' });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.body.ID, 'news-letter_1');
    assert.equal(a.body.Description, 'Monthly news');
    assert.equal(a.body.MessageStreamType, 'Broadcasts');
    assert.equal(a.body.SubscriptionManagementConfiguration.UnsubscribeHandlingType, 'Postmark');
    assert.equal(a.body.UpdatedAt, null, 'null until the stream is first changed, as the hosted service answers');

    const b = await create({ ServerID: String(s.serverId), Name: 'Password Résets!', MessageStreamType: 'transactional' });
    assert.equal(b.status, 200, b.text);
    assert.equal(b.body.ID, 'password-resets');
    assert.equal(b.body.MessageStreamType, 'Transactional');
    const c = await create({ ServerID: s.serverId, Name: 'Password Resets', MessageStreamType: 'Transactional' });
    assert.equal(c.body.ID, 'password-resets-2');

    const got = await s.request('GET', '/message-streams/Password-Resets');
    assert.equal(got.status, 200);
    assert.equal(got.body.Name, 'Password Résets!');
    for (const id of ['news-letter_1', 'password-resets', 'password-resets-2']) {
      await s.ctx.db.deleteFrom('message_streams').where('server_id', '=', s.serverId).where('id', '=', id).execute();
    }
  });

  it('refuses each create rule with its published code', async () => {
    const T = 'Transactional';
    assert.equal(await code(create({ Name: 'x', MessageStreamType: 'Promo' })), 1221);
    assert.equal(await code(create({ Name: 'x' })), 1221);
    assert.equal(await code(create({ ID: '', Name: 'x', MessageStreamType: T })), 1222);
    assert.equal(await code(create({ ID: 5, Name: 'x', MessageStreamType: T })), 1222);
    assert.equal(await code(create({ ID: 'a1', MessageStreamType: T })), 1223);
    assert.equal(await code(create({ ID: 'a1', Name: '   ', MessageStreamType: T })), 1223);
    assert.equal(await code(create({ ID: 'a1', Name: 'n'.repeat(101), MessageStreamType: T })), 1224);
    for (const bad of ['1abc', 'Abc', 'a b', 'a.b', '-a', 'a'.repeat(31), 'ünï']) {
      assert.equal(await code(create({ ID: bad, Name: 'x', MessageStreamType: T })), 1227, bad);
    }
    assert.equal(await code(create({ ID: 'pm-stream', Name: 'x', MessageStreamType: T })), 1233);
    assert.equal(await code(create({ ID: 'all', Name: 'x', MessageStreamType: T })), 1237);
    assert.equal(await code(create({ ID: 'outbound', Name: 'x', MessageStreamType: T })), 1230);
    assert.equal(await code(create({ ID: 'in2', Name: 'x', MessageStreamType: 'Inbound' })), 1228);
    assert.equal(await code(create({ ID: 'd1', Name: 'x', MessageStreamType: T, Description: 'd'.repeat(1001) })), 1231);
    assert.equal(await code(create({ ID: 'd1', Name: 'x', MessageStreamType: T, Description: 'see <b>this</b>' })), 1234);
    assert.equal(await code(create({ ID: 'd1', Name: 'x', MessageStreamType: T, Description: 'Tom &amp; Jerry' })), 1234);
    assert.equal(await code(create({ ServerID: '999999', Name: 'x', MessageStreamType: T })), 403);
    assert.equal(await code(create({ ID: 'd1', Name: 'x', MessageStreamType: T, SubscriptionManagementConfiguration: { UnsubscribeHandlingType: 'Postmark' } })), 403);
    assert.equal((await s.request('POST', '/message-streams', { raw: '[1,2]' })).status, 422);
    assert.equal((await s.request('POST', '/message-streams', { token: null, body: { Name: 'x', MessageStreamType: T } })).status, 401);
    // Nothing of the refused requests was stored.
    assert.equal((await s.request('GET', '/message-streams?includearchivedstreams=true')).body.TotalCount, 3);
  });

  it('accepts every limit exactly at its boundary', async () => {
    const r = await create({ ID: `a${'b'.repeat(29)}`, Name: 'n'.repeat(100), MessageStreamType: 'Transactional', Description: 'p < q, r > s & t'.padEnd(1000, '.') });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.ID.length, 30);
    assert.equal(r.body.Name.length, 100);
    assert.equal(r.body.Description.length, 1000);
    await s.ctx.db.deleteFrom('message_streams').where('server_id', '=', s.serverId).where('id', '=', r.body.ID).execute();
  });

  it('allows 10 streams per server including the defaults and archived ones (1225)', async () => {
    for (let i = 4; i <= 10; i++) {
      const r = await create({ ID: `s${i}`, Name: `Stream ${i}`, MessageStreamType: i % 2 ? 'Broadcasts' : 'Transactional' });
      assert.equal(r.status, 200, r.text);
    }
    assert.equal((await s.request('POST', '/message-streams/s4/archive')).status, 200);
    assert.equal(await code(create({ ID: 's11', Name: 'eleven', MessageStreamType: 'Transactional' })), 1225);
    assert.equal((await s.request('GET', '/message-streams')).body.TotalCount, 9);
    assert.equal((await s.request('GET', '/message-streams?IncludeArchivedStreams=true')).body.TotalCount, 10);
    // Another server has its own ten.
    const other = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Other' }, s.clock.now()));
    const r = await create({ ID: 's11', Name: 'eleven', MessageStreamType: 'Transactional' }, other.token);
    assert.equal(r.status, 200);
    assert.equal(r.body.ServerID, other.serverId);
    // ... and cannot see or change this server's streams.
    assert.equal(await code(s.request('GET', '/message-streams/s5', { token: other.token })), 1226);
    assert.equal(await code(s.request('PATCH', '/message-streams/s5', { token: other.token, body: { Name: 'mine' } })), 1226);
    assert.equal(await code(s.request('POST', '/message-streams/s5/archive', { token: other.token })), 1226);
    await s.ctx.db.deleteFrom('message_streams').where('server_id', '=', s.serverId).where('id', 'like', 's%').execute();
  });

  it('refuses concurrent creates beyond the limit', async () => {
    const all = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ ID: `race${i}`, Name: `Race ${i}`, MessageStreamType: 'Transactional' })),
    );
    assert.equal(all.filter((r) => r.status === 200).length, 7);
    assert.ok(all.filter((r) => r.status !== 200).every((r) => r.body.ErrorCode === 1225));
    const n = await s.ctx.db.selectFrom('message_streams').select('id').where('server_id', '=', s.serverId).execute();
    assert.equal(n.length, 10);
    await s.ctx.db.deleteFrom('message_streams').where('server_id', '=', s.serverId).where('id', 'like', 'race%').execute();
  });

  it('edits Name and Description, keeping type and ID', async () => {
    await create({ ID: 'promo', Name: 'Promo', MessageStreamType: 'Broadcasts' });
    s.clock.advance(1000);
    const r = await s.request('PATCH', '/message-streams/PROMO', { body: { Name: 'Promotions', Description: 'Deals', MessageStreamType: 'Inbound', ID: 'zzz' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.ID, 'promo');
    assert.equal(r.body.Name, 'Promotions');
    assert.equal(r.body.Description, 'Deals');
    assert.equal(r.body.MessageStreamType, 'Broadcasts');
    assert.ok(Date.parse(r.body.UpdatedAt) > Date.parse(r.body.CreatedAt));
    const custom = await s.request('PATCH', '/message-streams/promo', { body: { SubscriptionManagementConfiguration: { UnsubscribeHandlingType: 'Custom' } } });
    assert.equal(custom.body.SubscriptionManagementConfiguration.UnsubscribeHandlingType, 'Custom');
    const nulls = await s.request('PATCH', '/message-streams/promo', { body: { Name: null, Description: null } });
    assert.equal(nulls.body.Name, 'Promotions', 'null means not given');
    assert.equal(await code(s.request('PATCH', '/message-streams/promo', { body: { Name: '' } })), 1223);
    assert.equal(await code(s.request('PATCH', '/message-streams/promo', { body: { Name: 'n'.repeat(101) } })), 1224);
    assert.equal(await code(s.request('PATCH', '/message-streams/promo', { body: { Description: 'x'.repeat(1001) } })), 1231);
    assert.equal(await code(s.request('PATCH', '/message-streams/promo', { body: { Description: '<script>x</script>' } })), 1234);
    assert.equal(await code(s.request('PATCH', '/message-streams/nope', { body: { Name: 'x' } })), 1226);
    assert.equal((await s.request('GET', '/message-streams/promo')).body.Name, 'Promotions');
    assert.equal((await s.request('PATCH', '/message-streams/outbound', { body: { Name: 'Main' } })).body.Name, 'Main');
  });

  it('archives and unarchives, with the purge date 45 days out and the boundary honoured', async () => {
    s.clock.freeze();
    try {
      const at = s.clock.now();
      const a = await s.request('POST', '/message-streams/promo/archive', { headers: { 'content-length': '0' } });
      assert.equal(a.status, 200, a.text);
      assert.deepEqual(Object.keys(a.body).sort(), ['ExpectedPurgeDate', 'ID', 'ServerID']);
      assert.equal(a.body.ID, 'promo');
      assert.equal(a.body.ServerID, s.serverId);
      assert.equal(Date.parse(a.body.ExpectedPurgeDate), at + 45 * DAY);
      // Retrying keeps the first date.
      s.clock.advance(DAY);
      const again = await s.request('POST', '/message-streams/promo/archive', { body: undefined, headers: { 'content-type': 'application/json' } });
      assert.equal(again.body.ExpectedPurgeDate, a.body.ExpectedPurgeDate);
      const got = await s.request('GET', '/message-streams/promo');
      assert.equal(Date.parse(got.body.ArchivedAt), at);
      assert.equal(got.body.ExpectedPurgeDate, a.body.ExpectedPurgeDate);
      assert.ok(!(await s.request('GET', '/message-streams')).body.MessageStreams.some((m: any) => m.ID === 'promo'));

      s.clock.freeze(at + 45 * DAY - 1);
      const u = await s.request('POST', '/message-streams/promo/unarchive');
      assert.equal(u.status, 200, u.text);
      assert.equal(u.body.ArchivedAt, null);
      assert.equal(u.body.ExpectedPurgeDate, null);
      assert.equal((await s.request('POST', '/message-streams/promo/unarchive')).status, 200);

      const b = await s.request('POST', '/message-streams/promo/archive');
      s.clock.freeze(Date.parse(b.body.ExpectedPurgeDate));
      assert.equal(await code(s.request('POST', '/message-streams/promo/unarchive')), 1232);
      assert.ok((await s.request('GET', '/message-streams/promo')).body.ArchivedAt);
    } finally {
      s.clock.unfreeze();
    }
  });

  it('never archives a default stream (1229) and answers 1226 for unknown streams', async () => {
    for (const id of ['outbound', 'broadcast', 'inbound']) assert.equal(await code(s.request('POST', `/message-streams/${id}/archive`)), 1229);
    assert.equal(await code(s.request('GET', '/message-streams/missing')), 1226);
    assert.equal(await code(s.request('POST', '/message-streams/missing/archive')), 1226);
    assert.equal(await code(s.request('POST', '/message-streams/missing/unarchive')), 1226);
    const long = await s.request('GET', `/message-streams/${'x'.repeat(300)}`);
    assert.equal(long.status, 422);
  });
});
