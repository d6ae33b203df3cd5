// End to end: a domain verified through the API (its pending record published in loopback DNS) authorizes
// sending from any address at it; the delivered mail is signed with the active key and an independent
// verifier (mailauth) accepts the signature against DNS; after a rotation, the new key signs, and the
// custom Return-Path becomes the envelope domain once its CNAME resolves.
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const RP = 'bounces.mailroom.test';

describe('mail from a DKIM-verified domain', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let resolver: Resolver;
  const A = { accountToken: '' };

  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DNS_SERVERS: dns.address, MAILROOM_RETURN_PATH_DOMAIN: RP } });
    A.accountToken = s.accountToken;
    resolver = new Resolver();
    resolver.setServers([dns.address]);
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
  });

  const sendAndReceive = async (from: string, to: string) => {
    const r = await s.request('POST', '/email', { body: { From: from, To: to, Subject: `hello ${to}`, TextBody: 'Body text', HtmlBody: '<p>Body</p>' } });
    assert.equal(r.status, 200, r.text);
    await s.drain();
    const got = sink.messages.find((m) => m.to.includes(to));
    assert.ok(got, `delivered to ${to}`);
    return got;
  };
  const verify = async (raw: string) => {
    const res = await dkimVerify(Buffer.from(raw), { resolver: (name: string, rr: string) => resolver.resolve(name, rr as 'TXT') });
    assert.equal(res.results.length, 1);
    return res.results[0];
  };

  it('signs with the active key, verifiable in DNS; after rotation with the new key', async () => {
    const d = (await s.request('POST', '/domains', { ...A, body: { Name: 'brand.test' } })).body;
    // Not yet verified: no signature and no domain authorization.
    assert.equal((await s.request('POST', '/email', { body: { From: 'news@brand.test', To: 'a@dest.test', Subject: 's', TextBody: 't' } })).status, 422);

    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: d.DKIMPendingTextValue }]);
    const v = (await s.request('PUT', `/domains/${d.ID}/verifyDkim`, A)).body;
    assert.equal(v.DKIMVerified, true);
    const selector1 = v.DKIMHost.split('.')[0];

    // Any address at the domain may send, with no sender signature.
    const first = await sendAndReceive('News <news@brand.test>', 'first@dest.test');
    let sig = await verify(first.raw);
    assert.equal(sig.status.result, 'pass', JSON.stringify(sig.status));
    assert.equal(sig.signingDomain, 'brand.test');
    assert.equal(sig.selector, selector1);
    assert.match(first.from, new RegExp(`@${RP.replace(/\./g, '\\.')}$`), 'default envelope domain');

    // Rotation: until the new record is published, the old key keeps signing.
    const rot = (await s.request('POST', `/domains/${d.ID}/rotatedkim`, A)).body;
    const selector2 = rot.DKIMPendingHost.split('.')[0];
    const during = await sendAndReceive('billing@brand.test', 'during@dest.test');
    assert.equal((await verify(during.raw)).selector, selector1);

    dns.set(rot.DKIMPendingHost, [{ type: 'TXT', data: rot.DKIMPendingTextValue }]);
    const done = (await s.request('PUT', `/domains/${d.ID}/verifyDkim`, A)).body;
    assert.equal(done.DKIMRevokedHost, v.DKIMHost);
    assert.equal(done.SafeToRemoveRevokedKeyFromDNS, true);
    const second = await sendAndReceive('news@brand.test', 'second@dest.test');
    sig = await verify(second.raw);
    assert.equal(sig.status.result, 'pass', JSON.stringify(sig.status));
    assert.equal(sig.selector, selector2);

    // The revoked record removed from DNS: new mail still verifies (it carries the new key's signature).
    dns.remove(v.DKIMHost);
    assert.equal((await verify((await sendAndReceive('news@brand.test', 'third@dest.test')).raw)).status.result, 'pass');
  });

  it('uses the custom Return-Path as envelope domain once its CNAME resolves', async () => {
    const d = (await s.request('GET', '/domains?count=1&offset=0', A)).body.Domains[0];
    await s.request('PUT', `/domains/${d.ID}`, { ...A, body: { ReturnPathDomain: 'pm-bounces.brand.test' } });
    const before = await sendAndReceive('news@brand.test', 'rp-before@dest.test');
    assert.match(before.from, new RegExp(`@${RP.replace(/\./g, '\\.')}$`));
    dns.set('pm-bounces.brand.test', [{ type: 'CNAME', domain: RP }]);
    assert.equal((await s.request('PUT', `/domains/${d.ID}/verifyReturnPath`, A)).body.ReturnPathDomainVerified, true);
    const after = await sendAndReceive('news@brand.test', 'rp-after@dest.test');
    assert.match(after.from, /@pm-bounces\.brand\.test$/);
  });
});
