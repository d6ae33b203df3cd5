// The password inside InboundHookUrl (issue 27, "Secrets and links"): sealed at rest like a webhook's HttpAuth
// password, masked by GET /server and GET /servers/{id}, kept when the masked URL is sent back, and still
// sent for real as HTTP basic auth to the loopback receiver. A row written before migration 0027 (the
// password in the URL, in plain text) is sealed at start-up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sealInboundHookPasswords } from '../../../src/domain/servers/inbound-hook-secret.js';
import { startInbound, sendInbound, type InboundSetup } from './inbound-helpers.js';

const MASK = '********';

describe('the InboundHookUrl password', () => {
  let t: InboundSetup;
  let hookUrl: (user: string, pass: string) => string;
  before(async () => {
    t = await startInbound();
    hookUrl = (user, pass) => `http://${user}:${pass}@127.0.0.1:${t.app.port}/inbound`;
  });
  after(async () => {
    await t.close();
  });

  const stored = () => t.s.ctx.db.selectFrom('servers').select(['inbound_hook_url', 'inbound_hook_password']).where('id', '=', t.s.serverId).executeTakeFirstOrThrow();
  const authOfNextPost = async (subject: string) => {
    assert.ok((await sendInbound(t.s, { to: t.address, subject })).ok);
    await t.s.drain();
    const req = t.app.requests.find((r) => r.json?.Subject === subject);
    assert.ok(req, `a post of "${subject}"`);
    return req.headers.authorization;
  };
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

  it('is sealed at rest, masked when read, and sent for real', async () => {
    const put = await t.s.request('PUT', '/server', { body: { InboundHookUrl: hookUrl('hook-user', 's3cr%40t') } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.InboundHookUrl, hookUrl('hook-user', MASK));
    const row = await stored();
    assert.ok(!JSON.stringify(row).includes('s3cr'), JSON.stringify(row));
    assert.equal(row.inbound_hook_url, `http://hook-user@127.0.0.1:${t.app.port}/inbound`);
    assert.match(row.inbound_hook_password, /^v1\./);
    assert.equal((await t.s.request('GET', '/server')).body.InboundHookUrl, hookUrl('hook-user', MASK));
    const byId = await t.s.request('GET', `/servers/${t.s.serverId}`, { accountToken: t.s.accountToken });
    assert.equal(byId.status, 200, byId.text);
    assert.equal(byId.body.InboundHookUrl, hookUrl('hook-user', MASK));
    assert.equal(await authOfNextPost('Sealed password'), basic('hook-user', 's3cr@t'));
  });

  it('keeps the password when the masked URL comes back, and drops it when the URL has none', async () => {
    await t.s.request('PUT', '/server', { body: { InboundHookUrl: hookUrl('hook-user', 'first') } });
    const back = await t.s.request('PUT', '/server', { body: { InboundHookUrl: hookUrl('hook-user', MASK), Name: 'Renamed' } });
    assert.equal(back.status, 200, back.text);
    assert.equal(await authOfNextPost('Mask kept'), basic('hook-user', 'first'));
    const plain = await t.s.request('PUT', '/server', { body: { InboundHookUrl: `${t.app.url}/inbound` } });
    assert.equal(plain.body.InboundHookUrl, `${t.app.url}/inbound`);
    assert.equal((await stored()).inbound_hook_password, '');
    assert.equal(await authOfNextPost('No password'), undefined);
  });

  it('seals a password stored in plain text before migration 0027, at start-up', async () => {
    await t.s.ctx.db.updateTable('servers').set({ inbound_hook_url: hookUrl('old-user', 'plain'), inbound_hook_password: '' }).where('id', '=', t.s.serverId).execute();
    assert.equal(await sealInboundHookPasswords(t.s.ctx.db, t.s.ctx.secrets), 1);
    assert.equal(await sealInboundHookPasswords(t.s.ctx.db, t.s.ctx.secrets), 0, 'sealed once');
    const row = await stored();
    assert.ok(!row.inbound_hook_url.includes('plain'));
    assert.equal((await t.s.request('GET', '/server')).body.InboundHookUrl, hookUrl('old-user', MASK));
    assert.equal(await authOfNextPost('Sealed at start'), basic('old-user', 'plain'));
  });
});
