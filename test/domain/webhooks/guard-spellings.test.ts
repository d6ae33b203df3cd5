// The address guard against every spelling of a forbidden target (issue 18): loopback, private,
// link-local, unique-local and unspecified addresses written as IPv4-mapped, IPv4-compatible, NAT64, 6to4
// and Teredo IPv6, with trailing dots, in decimal, octal and hex IPv4, and URLs with an empty host. Each
// one is refused when saved (606) and again when connected to (a row stored before the rule existed).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPoster } from '../../../src/domain/webhooks/http-post.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

describe('address guard: every spelling of a forbidden target', () => {
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

  const spellings = (p: number): string[] => [
    // loopback, IPv4 in every notation the URL parser accepts
    `http://127.0.0.1:${p}/`,
    `http://127.0.0.1.:${p}/`,
    `http://127.1:${p}/`,
    `http://2130706433:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://0x7f.0.0.1:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://017700000001:${p}/`,
    `http://127.000.000.001:${p}/`,
    `http://%31%32%37.0.0.1:${p}/`,
    `https://127.255.255.254/`,
    // unspecified
    `http://0.0.0.0:${p}/`,
    `http://0:${p}/`,
    `http://[::]:${p}/`,
    `http://[0:0:0:0:0:0:0:0]:${p}/`,
    // IPv6 loopback and its spellings
    `http://[::1]:${p}/`,
    `http://[0:0:0:0:0:0:0:1]:${p}/`,
    `http://[0000::0001]:${p}/`,
    // IPv4-mapped (RFC 4291 2.5.5.2), IPv4-compatible (2.5.5.1), IPv4-translated, NAT64, 6to4, Teredo
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
    `http://[::127.0.0.1]:${p}/`,
    `http://[::7f00:1]:${p}/`,
    `http://[::169.254.169.254]/`,
    `http://[::10.0.0.1]/`,
    `http://[::ffff:0:127.0.0.1]:${p}/`,
    `http://[64:ff9b::127.0.0.1]:${p}/`,
    `http://[64:ff9b:1::1]/`,
    `http://[2002:7f00:1::1]/`,
    `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/`,
    // link-local and metadata
    `http://169.254.169.254/latest/meta-data/`,
    `http://169.254.169.254./`,
    `http://2852039166/`,
    `http://0xa9.0xfe.0xa9.0xfe/`,
    `http://[::ffff:169.254.169.254]/`,
    `http://[fe80::1]/`,
    `http://[fe80::1%25eth0]/`,
    `http://[febf::1]/`,
    // private and unique-local
    `http://10.0.0.1/`,
    `http://012.0.0.1/`,
    `http://172.16.0.1/`,
    `http://172.31.255.255/`,
    `http://192.168.0.1/`,
    `http://3232235521/`,
    `http://100.64.0.1/`,
    `http://[fc00::1]/`,
    `http://[fd00::1]/`,
    `http://[fd00:ec2::254]/`,
    `http://[::ffff:192.168.1.1]/`,
    // localhost names, trailing dots, case
    `http://localhost:${p}/`,
    `http://localhost.:${p}/`,
    `http://LOCALHOST..:${p}/`,
    `http://api.localhost:${p}/`,
    `http://api.localhost.:${p}/`,
    // no host, or a host the parser would invent from what follows
    'http:///x',
    `http:///127.0.0.1:${p}/`,
    'http:/x',
    `http:\\\\127.0.0.1:${p}/`,
    'http://',
    'http://:80/',
    'http://?x',
    'http://#x',
  ];

  it(`refuses each at save time with 606 (${spellings(1).length} spellings), and accepts public targets`, async () => {
    const list = spellings(rx.port);
    assert.ok(list.length >= 40);
    for (const Url of list) {
      const r = await s.request('POST', '/webhooks', { body: { Url } });
      assert.equal(r.status, 422, `${Url}: ${r.text}`);
      assert.equal(r.body.ErrorCode, 606, Url);
    }
    for (const Url of ['https://93.184.216.34/hook', 'https://hooks.example.com./x', 'http://[2606:4700:4700::1111]/', 'http://[::ffff:8.8.8.8]/', 'http://[64:ff9b::808:808]/']) {
      const r = await s.request('POST', '/webhooks', { body: { Url } });
      assert.equal(r.status, 200, `${Url}: ${r.text}`);
    }
  });

  it('refuses each at connect time (a stored row the save-time check never saw): nothing reaches the receiver', async () => {
    const poster = createPoster(s.ctx);
    try {
      for (const url of spellings(rx.port)) {
        const r = await poster.post(url, {}, '{}', 2000);
        assert.equal(r.status, null, url);
        assert.equal(r.permanent, true, `${url}: ${r.error}`);
      }
    } finally {
      poster.close();
    }
    assert.equal(rx.requests.length, 0);
  });
});
