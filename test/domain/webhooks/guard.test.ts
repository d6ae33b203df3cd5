import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isForbiddenAddress } from '../../../src/domain/webhooks/address-guard.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { addHook, insertMessage, record } from './fixtures.js';

describe('webhook target guard (private addresses refused)', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let rx: WebhookReceiver;
  before(async () => {
    dns = await startDnsServer();
    rx = await startWebhookReceiver();
    // No MAILROOM_WEBHOOK_ALLOW_PRIVATE: the default, guarded configuration.
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address } });
  });
  after(async () => {
    await s.close();
    await rx.close();
    await dns.close();
  });

  it('classifies addresses', () => {
    const forbidden = ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254', '169.254.1.1',
      '0.0.0.0', '224.0.0.1', '239.1.1.1', '255.255.255.255', '::', '::1', 'fd00::1', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'ff02::1',
      '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', '2002:7f00:1::1', '[::1]', 'not-an-ip'];
    const allowed = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.0.2.10', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
    for (const a of forbidden) assert.equal(isForbiddenAddress(a), true, a);
    for (const a of allowed) assert.equal(isForbiddenAddress(a), false, a);
  });

  it('refuses a host name that resolves to loopback, at connect time, and fails the notification', async () => {
    dns.set('hooks.example.test', [{ type: 'A', address: '127.0.0.1' }]);
    dns.set('mixed.example.test', [{ type: 'A', address: '93.184.216.34' }, { type: 'A', address: '127.0.0.1' }]);
    const hook = await addHook(s, `http://hooks.example.test:${rx.port}/x`, { Triggers: { Delivery: { Enabled: true } } });
    const mixed = await addHook(s, `http://mixed.example.test:${rx.port}/x`, { Triggers: { Delivery: { Enabled: true } } });
    const messageId = await insertMessage(s);
    const [ev] = await record(s, [{ messageId, type: 'Delivered', details: {} }]);
    await s.drain();
    assert.equal(rx.requests.length, 0, 'nothing reached the loopback receiver');
    for (const h of [hook, mixed]) {
      const n = await s.ctx.db.selectFrom('webhook_notifications').selectAll().where('event_id', '=', ev.id).where('webhook_id', '=', h.id).executeTakeFirstOrThrow();
      assert.equal(n.status, 'failed');
      assert.match(n.last_error!, /127\.0\.0\.1, a private or reserved address/);
    }
    assert.ok(dns.queries.includes('hooks.example.test'), 'the name was resolved through the service DNS');

    // Control: the same name is reached when private targets are allowed (the guard, not DNS, refused it).
    s.ctx.config.webhookAllowPrivate = true;
    try {
      const [ev2] = await record(s, [{ messageId, type: 'Delivered', details: {} }]);
      await s.drain();
      assert.equal(rx.requests.filter((r) => r.headers['x-mailroom-event-id'] === String(ev2.id)).length, 2);
    } finally {
      s.ctx.config.webhookAllowPrivate = false;
    }
  });

  it('refuses literal private addresses at create time', async () => {
    for (const Url of [`http://127.0.0.1:${rx.port}/`, 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/', 'http://[fd00::1]/', 'http://2130706433/', 'http://localhost/']) {
      const r = await s.request('POST', '/webhooks', { body: { Url } });
      assert.equal(r.body.ErrorCode, 606, Url);
    }
    const ok = await s.request('POST', '/webhooks', { body: { Url: 'https://93.184.216.34/hook' } });
    assert.equal(ok.status, 200);
  });
});
