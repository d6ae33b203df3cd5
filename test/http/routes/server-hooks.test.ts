// The legacy hook settings act (issue 18): BounceHookUrl and the others drive the matching webhook of the
// server's default transactional stream (visible in GET /webhooks, and the other way round), go through
// the webhook address guard, and a notification for an event reaches the URL set there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertMessage, record } from '../../domain/webhooks/fixtures.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

describe('server hook settings drive the default stream webhooks', () => {
  let s: TestService;
  let rx: WebhookReceiver;
  before(async () => {
    rx = await startWebhookReceiver();
    s = await startService();
  });
  after(async () => {
    await s.close();
    await rx.close();
  });

  const put = (body: Record<string, unknown>) => s.request('PUT', '/server', { body });
  const hooks = async () => (await s.request('GET', '/webhooks')).body.Webhooks as Array<{ ID: number; Url: string; MessageStream: string; Triggers: Record<string, { Enabled: boolean; [k: string]: boolean }> }>;

  it('refuses private targets in every hook field, the inbound hook included', async () => {
    for (const Url of ['http://127.0.0.1/', 'http://169.254.169.254/', 'http://[::1]/', 'http://[::127.0.0.1]/', 'http://localhost./', 'http:///x']) {
      for (const field of ['BounceHookUrl', 'OpenHookUrl', 'DeliveryHookUrl', 'ClickHookUrl', 'SpamComplaintHookUrl', 'InboundHookUrl']) {
        const r = await put({ [field]: Url });
        assert.equal(r.status, 422, `${field} ${Url}`);
        assert.equal(r.body.ErrorCode, 606, `${field} ${Url}`);
      }
    }
    assert.deepEqual(await hooks(), [], 'nothing was stored');
    const server = (await s.request('GET', '/server')).body;
    for (const f of ['BounceHookUrl', 'OpenHookUrl', 'DeliveryHookUrl', 'ClickHookUrl', 'InboundHookUrl']) assert.equal(server[f], '', f);
    // The inbound hook is stored (inbound processing posts to it) and is not a stream webhook.
    const inbound = await put({ InboundHookUrl: 'https://hooks.example.com/in' });
    assert.equal(inbound.status, 200, inbound.text);
    assert.equal(inbound.body.InboundHookUrl, 'https://hooks.example.com/in');
    assert.deepEqual(await hooks(), []);
    assert.equal((await put({ InboundHookUrl: '' })).body.InboundHookUrl, '');
  });

  it('creates, moves and switches off the matching webhook, and shows webhooks made through /webhooks', async () => {
    const r = await put({ BounceHookUrl: 'https://hooks.example.com/bounce', OpenHookUrl: 'https://hooks.example.com/all', ClickHookUrl: 'https://hooks.example.com/all', PostFirstOpenOnly: true, IncludeBounceContentInHook: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.BounceHookUrl, 'https://hooks.example.com/bounce');
    assert.equal(r.body.OpenHookUrl, 'https://hooks.example.com/all');
    assert.equal(r.body.ClickHookUrl, 'https://hooks.example.com/all');
    assert.equal(r.body.DeliveryHookUrl, '');
    let list = await hooks();
    assert.equal(list.length, 2, 'one webhook per URL');
    const bounce = list.find((h) => h.Url.endsWith('/bounce'))!;
    const all = list.find((h) => h.Url.endsWith('/all'))!;
    assert.equal(bounce.MessageStream, 'outbound');
    assert.deepEqual(bounce.Triggers.Bounce, { Enabled: true, IncludeContent: true });
    assert.equal(bounce.Triggers.Open.Enabled, false);
    assert.deepEqual(all.Triggers.Open, { Enabled: true, PostFirstOpenOnly: true });
    assert.equal(all.Triggers.Click.Enabled, true);

    // Moving the bounce hook moves its webhook (same ID); clearing the open hook leaves click alone.
    await put({ BounceHookUrl: 'https://hooks.example.com/bounce2', OpenHookUrl: '' });
    list = await hooks();
    assert.equal(list.find((h) => h.ID === bounce.ID)?.Url, 'https://hooks.example.com/bounce2');
    const allNow = list.find((h) => h.ID === all.ID)!;
    assert.equal(allNow.Triggers.Open.Enabled, false);
    assert.equal(allNow.Triggers.Click.Enabled, true);
    // Clearing the last trigger of a webhook deletes it: nothing is kept that would never be called.
    await put({ ClickHookUrl: '' });
    assert.equal((await hooks()).some((h) => h.ID === all.ID), false);

    // The other way round: a webhook made through /webhooks on the default stream shows in the fields.
    const made = await s.request('POST', '/webhooks', { body: { Url: 'https://hooks.example.com/delivery', Triggers: { Delivery: { Enabled: true } } } });
    assert.equal(made.status, 200, made.text);
    const server = (await s.request('GET', '/server')).body;
    assert.equal(server.DeliveryHookUrl, 'https://hooks.example.com/delivery');
    assert.equal(server.BounceHookUrl, 'https://hooks.example.com/bounce2');
    // A webhook of another stream is not the default stream's: it does not show.
    await s.request('POST', '/webhooks', { body: { Url: 'https://hooks.example.com/broadcast', MessageStream: 'broadcast', Triggers: { Open: { Enabled: true } } } });
    assert.equal((await s.request('GET', '/server')).body.OpenHookUrl, '');
    await put({ BounceHookUrl: '', DeliveryHookUrl: '' });
    assert.deepEqual((await hooks()).map((h) => h.MessageStream), ['broadcast']);
  });

  it('posts an event to the URL set in the hook field', async () => {
    s.ctx.config.webhookAllowPrivate = true;
    try {
      const r = await put({ DeliveryHookUrl: `http://127.0.0.1:${rx.port}/delivered` });
      assert.equal(r.status, 200, r.text);
      const messageId = await insertMessage(s);
      await record(s, [{ messageId, type: 'Delivered', details: { DeliveryMessage: 'smtp;250 ok' } }]);
      await s.drain();
      const got = rx.requests.filter((q) => q.path === '/delivered');
      assert.equal(got.length, 1);
      assert.equal(JSON.parse(got[0].body).RecordType, 'Delivery');
      assert.equal(JSON.parse(got[0].body).MessageID, messageId);
    } finally {
      s.ctx.config.webhookAllowPrivate = false;
      await put({ DeliveryHookUrl: '' });
    }
  });

  it('applies hook fields given at server creation through the account API', async () => {
    const r = await s.request('POST', '/servers', { body: { Name: 'With hooks', BounceHookUrl: 'https://hooks.example.com/b' }, accountToken: s.accountToken });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.BounceHookUrl, 'https://hooks.example.com/b');
    const read = await s.request('GET', `/servers/${r.body.ID}`, { accountToken: s.accountToken });
    assert.equal(read.body.BounceHookUrl, 'https://hooks.example.com/b');
    const bad = await s.request('PUT', `/servers/${r.body.ID}`, { body: { OpenHookUrl: 'http://10.0.0.1/' }, accountToken: s.accountToken });
    assert.equal(bad.body.ErrorCode, 606);
  });
});
