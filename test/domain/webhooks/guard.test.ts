import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isForbiddenAddress, setInterfaceSource } from '../../../src/infra/net/address-guard.js';
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
      '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', '2002:7f00:1::1', '[::1]', 'not-an-ip', '192.0.2.10', '198.51.100.1', '203.0.113.1', '2001:db8::1'];
    const allowed = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
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

  it("refuses 192.0.2.1 and this host's own interface address at save time and at connect time", async () => {
    // A listener bound to 0.0.0.0, as the probe found on the mailroom host: reachable on every address of it.
    const hits: string[] = [];
    const open = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((r) => open.listen(0, '0.0.0.0', r));
    const port = (open.address() as AddressInfo).port;
    // The host's first non-loopback IPv4 address (a container's 172.x or a server's public one); 8.8.4.4
    // stands for a public address of the host, so the rule is seen apart from the private ranges.
    const own = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? '127.0.0.1';
    setInterfaceSource(() => [...Object.values(networkInterfaces()).flat().map((i) => i!.address), '8.8.4.4']);
    try {
      // Save time: 422 with the bad-webhook-URL code, for webhooks and the server's InboundHookUrl.
      for (const Url of ['http://192.0.2.1/', `http://${own}:${port}/`, 'http://8.8.4.4/']) {
        const r = await s.request('POST', '/webhooks', { body: { Url } });
        assert.equal(r.status, 422, Url);
        assert.equal(r.body.ErrorCode, 606, Url);
        const inbound = await s.request('PUT', '/server', { body: { InboundHookUrl: Url } });
        assert.equal(inbound.status, 422, Url);
        assert.equal(inbound.body.ErrorCode, 606, Url);
      }
      const saved = await s.request('POST', '/webhooks', { body: { Url: 'http://8.8.4.4/' } });
      assert.match(saved.body.Message, /8\.8\.4\.4, an address of this host/);

      // Connect time: names that resolve there, and rows saved while private targets were allowed.
      dns.set('doc.example.test', [{ type: 'A', address: '192.0.2.1' }]);
      dns.set('self.example.test', [{ type: 'A', address: own }]);
      dns.set('public-self.example.test', [{ type: 'A', address: '8.8.4.4' }]);
      const on = { Triggers: { Delivery: { Enabled: true } } };
      const hooks = [
        await addHook(s, `http://doc.example.test:${port}/doc`, on),
        await addHook(s, `http://self.example.test:${port}/self`, on),
        await addHook(s, `http://public-self.example.test:${port}/public-self`, on),
      ];
      s.ctx.config.webhookAllowPrivate = true;
      hooks.push(await addHook(s, `http://192.0.2.1:${port}/doc-literal`, on), await addHook(s, `http://${own}:${port}/self-literal`, on));
      s.ctx.config.webhookAllowPrivate = false;

      const messageId = await insertMessage(s);
      const [ev] = await record(s, [{ messageId, type: 'Delivered', details: {} }]);
      await s.drain();
      assert.equal(hits.length, 0, `nothing reached the listener: ${hits.join(' ')}`);
      const reasons = [/192\.0\.2\.1, a private or reserved address/, own === '127.0.0.1' ? /127\.0\.0\.1/ : /private or reserved|an address of this host/, /8\.8\.4\.4, an address of this host/, /192\.0\.2\.1, a private or reserved address/, /private or reserved|an address of this host/];
      for (const [i, h] of hooks.entries()) {
        const n = await s.ctx.db.selectFrom('webhook_notifications').selectAll().where('event_id', '=', ev.id).where('webhook_id', '=', h.id).executeTakeFirstOrThrow();
        assert.equal(n.status, 'failed', `hook ${i}`);
        assert.match(n.last_error!, reasons[i]!, `hook ${i}`);
      }

      // Control: with private targets allowed, the host's own address does reach the listener (the hooks
      // that would go off this machine are removed first).
      for (const h of [hooks[0]!, hooks[2]!, hooks[3]!]) assert.equal((await s.request('DELETE', `/webhooks/${h.id}`)).status, 200);
      s.ctx.config.webhookAllowPrivate = true;
      try {
        await record(s, [{ messageId, type: 'Delivered', details: {} }]);
        await s.drain();
        assert.ok(hits.includes('/self') && hits.includes('/self-literal'), `reached: ${hits.join(' ')}`);
      } finally {
        s.ctx.config.webhookAllowPrivate = false;
      }
    } finally {
      setInterfaceSource(null);
      await new Promise((r) => open.close(r));
    }
  });
});
