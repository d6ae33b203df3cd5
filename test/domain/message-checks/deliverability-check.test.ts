// The deliverability check (domain/message-checks/deliverability-check.ts) and its Mailpit-style route: on a
// delivered message, DKIM verified against the key published in (the test's) DNS, with the envelope-domain
// signature; alignment and its cost; header lines over 78; which links tracking rewrites and which it leaves.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { deliverabilityCheck } from '../../../src/domain/message-checks/deliverability-check.js';
import { registerMailpitCheckRoutes } from '../../../src/http/routes/mailpit/checks.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender, addVerifiedDomain } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

describe('deliverability check', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let app: FastifyInstance;
  const send = async (body: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { body: { From: 'news@example.com', To: 'jane@dest.example', Subject: 'Hi', ...body } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DNS_SERVERS: dns.address } });
    await addConfirmedSender(s, 'news@example.com');
    const key = await addVerifiedDomain(s, 'example.com', 'mr1');
    dns.set('mr1._domainkey.example.com', [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${key.publicKeyBase64}` }]);
    app = Fastify();
    await app.register(async (scope) => registerMailpitCheckRoutes(scope, { ctx: s.ctx, serverFor: async () => ({ id: s.serverId }) }), { prefix: '/mailpit' });
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app.close();
    await s.close();
    await sink.close();
    await dns.close();
  });

  it('shows the cost of the default envelope, and which links tracking leaves alone', async () => {
    const id = await send({
      HtmlBody: '<a href="https://shop.example.com/account">https://shop.example.com/account</a> <a href="https://shop.example.com/help">Help</a>',
      TrackLinks: 'HtmlOnly',
      Headers: [{ Name: 'X-Long', Value: 'x'.repeat(120) }],
    });
    await s.drain();
    const r = await deliverabilityCheck(s.ctx, { serverId: s.serverId }, id);
    // X-Long's value is one word of 120: folded before it, a line of 121 that cannot be folded further.
    assert.deepEqual(r.DKIM.Signatures.map((x) => [x.Domain, x.Selector, x.Result]), [['example.com', 'mr1', 'pass']]);
    assert.equal(r.Alignment.Aligned, false);
    assert.equal(r.Alignment.EnvelopeDomain, s.ctx.config.returnPathDomain);
    assert.match(r.Alignment.Cost, /HEADER_FROM_DIFFERENT_DOMAINS/);
    assert.deepEqual(r.Headers.Overlong, [{ Name: 'X-Long', Length: 121 }]);
    assert.deepEqual(r.Tracking.Tracked, ['https://shop.example.com/help']);
    assert.deepEqual(r.Tracking.Untracked.map((u) => u.Link), ['https://shop.example.com/account']);
  });

  it('with a verified Return-Path: aligned, both signatures pass; the Mailpit-style route answers the same', async () => {
    await s.ctx.db.updateTable('domains').set({ return_path_domain: 'pm-bounces.example.com', return_path_verified: 1 }).where('name', '=', 'example.com').execute();
    const id = await send({ TextBody: 'hello' });
    await s.drain();
    const res = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mailpit/api/v1/message/${id}/deliverability-check`);
    assert.equal(res.status, 200);
    const r = (await res.json()) as Awaited<ReturnType<typeof deliverabilityCheck>>;
    assert.deepEqual(r.DKIM.Signatures.map((x) => [x.Domain, x.Identity, x.Result]), [['example.com', '', 'pass'], ['example.com', '@pm-bounces.example.com', 'pass']]);
    assert.equal(r.Alignment.Aligned, true);
    assert.equal(r.Alignment.Cost, '');
    assert.deepEqual(r.Headers.Overlong, []);
    const missing = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mailpit/api/v1/message/nope/deliverability-check`);
    assert.equal(missing.status, 404);
  });
});
