import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { envelopeDomain, findSigningKey } from '../../../src/domain/sender-signatures/signing.js';
import { storeToken } from '../../../src/domain/tokens/tokens.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const RP = 'bounces.mailroom.test';
const SPF = 'spf.mailroom.test';

describe('Domains API with DNS verification', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  const A = () => ({ accountToken: s.accountToken });
  /** Publishes a DKIM value as given (v=DKIM1 first, as the API writes it). */
  const publish = (host: string, value: string) => dns.set(host, [{ type: 'TXT', data: value }]);

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    s = await startService({
      env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_RETURN_PATH_DOMAIN: RP, MAILROOM_SPF_INCLUDE: SPF, MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` },
    });
  });
  after(async () => {
    await s.close();
    await dns.close();
    await sink.close();
  });

  it('creates a domain with a pending 2048-bit key, sealed at rest', async () => {
    const r = await s.request('POST', '/domains', { ...A(), body: { Name: ' Example.TEST ' } });
    assert.equal(r.status, 200, r.text);
    const d = r.body;
    assert.equal(d.Name, 'example.test');
    assert.equal(d.DKIMVerified, false);
    assert.equal(d.WeakDKIM, false);
    assert.equal(d.DKIMUpdateStatus, 'Pending');
    assert.equal(d.DKIMHost, '');
    assert.match(d.DKIMPendingHost, /^mr\d{14}[0-9a-f]{4}\._domainkey\.example\.test$/);
    assert.match(d.DKIMPendingTextValue, /^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]+$/);
    assert.equal(d.SPFHost, 'example.test');
    assert.equal(d.SPFTextValue, `v=spf1 a mx include:${SPF} ~all`);
    assert.equal(d.ReturnPathDomainCNAMEValue, RP);
    assert.equal(d.SafeToRemoveRevokedKeyFromDNS, false);
    const key = await s.ctx.db.selectFrom('dkim_keys').selectAll().where('domain_id', '=', d.ID).executeTakeFirstOrThrow();
    assert.equal(key.bits, 2048);
    assert.match(key.private_key, /^v1\./);
    assert.doesNotMatch(key.private_key, /PRIVATE KEY/);
    assert.match(s.ctx.secrets.open(key.private_key), /^-----BEGIN PRIVATE KEY-----/);
    // Not usable for signing until DNS shows it.
    assert.equal(await findSigningKey(s.ctx, s.accountId, 'a@example.test'), null);
  });

  it('refuses bad names with the published codes', async () => {
    const code = async (body: unknown) => {
      const r = await s.request('POST', '/domains', { ...A(), body });
      assert.equal(r.status, 422, r.text);
      return r.body.ErrorCode;
    };
    assert.equal(await code({}), 514);
    assert.equal((await s.request('POST', '/domains', A())).body.ErrorCode, 514);
    assert.equal(await code({ Name: 42 }), 516);
    assert.equal(await code({ Name: { a: 1 } }), 511);
    assert.equal(await code({ Name: '   ' }), 514);
    assert.equal(await code({ Name: `${'a'.repeat(60)}.`.repeat(4) + 'abcdefghijklmnopqrst' }), 515); // 264 characters
    assert.equal(await code({ Name: 'no_dots' }), 516);
    assert.equal(await code({ Name: 'x@y.test' }), 516);
    assert.equal(await code({ Name: '-bad.test' }), 516);
    assert.equal(await code({ Name: '127.0.0.1' }), 516);
    assert.equal(await code({ Name: 'EXAMPLE.test' }), 512);
    assert.equal(await code({ Name: 'gmail.com' }), 503);
    assert.equal(await code({ Name: 'ok.test', ReturnPathDomain: 'elsewhere.test' }), 511);
    // 253 characters is the longest host name (RFC 1035 2.3.4) and is accepted.
    const longest = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`;
    assert.equal(longest.length, 253);
    assert.equal((await s.request('POST', '/domains', { ...A(), body: { Name: longest } })).status, 200);
    assert.equal((await s.request('POST', '/domains', { body: { Name: 'x.test' } })).status, 401); // server token
  });

  it('walks pending -> verified, then a rotation with revoked key, 505 while pending, new signing key', async () => {
    const id = (await s.request('POST', '/domains', { ...A(), body: { Name: 'rotate.test' } })).body.ID;
    let d = (await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body;
    assert.equal(d.DKIMUpdateStatus, 'Pending', 'nothing published yet');
    assert.equal(d.DKIMVerified, false);
    // A wrong value at the host does not verify.
    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: 'v=DKIM1; k=rsa; p=MIIBwrong' }]);
    assert.equal((await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body.DKIMVerified, false);
    const first = { host: d.DKIMPendingHost, value: d.DKIMPendingTextValue };
    publish(first.host, first.value);
    d = (await s.request('PUT', `/domains/${id}/verifyDKIM`, A())).body; // mixed-case path, as SDKs send it
    assert.equal(d.DKIMVerified, true);
    assert.equal(d.DKIMUpdateStatus, 'Verified');
    assert.equal(d.DKIMHost, first.host);
    assert.equal(d.DKIMTextValue, first.value);
    assert.equal(d.DKIMPendingHost, '');
    assert.equal(d.DKIMRevokedHost, '');
    const key1 = await findSigningKey(s.ctx, s.accountId, 'news@rotate.test');
    assert.equal(`${key1!.keySelector}._domainkey.rotate.test`, first.host);
    assert.equal((await s.request('GET', '/domains?count=10&offset=0', A())).body.Domains.find((x: any) => x.ID === id).DKIMVerified, true);

    // Rotation: a pending key appears; the first key keeps signing until the new one is published.
    d = (await s.request('POST', `/domains/${id}/rotatedkim`, A())).body;
    assert.equal(d.DKIMUpdateStatus, 'Pending');
    assert.equal(d.DKIMHost, first.host);
    assert.notEqual(d.DKIMPendingHost, first.host);
    const second = { host: d.DKIMPendingHost, value: d.DKIMPendingTextValue };
    // A renewal already running is an API error (422 with ErrorCode 505): a 200 answer of rotatedkim is a
    // domain, which the hosted service's clients parse as one (issue 27).
    const again = await s.request('POST', `/domains/${id}/rotateDKIM`, A());
    assert.equal(again.status, 422);
    assert.equal(again.body.ErrorCode, 505);
    assert.deepEqual(Object.keys(again.body).sort(), ['ErrorCode', 'Message']);
    assert.equal((await findSigningKey(s.ctx, s.accountId, 'news@rotate.test'))!.keySelector, key1!.keySelector);

    publish(second.host, second.value);
    d = (await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body;
    assert.equal(d.DKIMUpdateStatus, 'Verified');
    assert.equal(d.DKIMHost, second.host);
    assert.equal(d.DKIMRevokedHost, first.host);
    assert.equal(d.DKIMRevokedTextValue, first.value);
    assert.equal(d.SafeToRemoveRevokedKeyFromDNS, true, 'no queued mail from this domain');
    assert.equal(`${(await findSigningKey(s.ctx, s.accountId, 'news@rotate.test'))!.keySelector}._domainkey.rotate.test`, second.host);

    // DKIMVerified never reverts, even when the records disappear.
    dns.remove(second.host);
    d = (await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body;
    assert.equal(d.DKIMVerified, true);
    assert.equal(d.DKIMHost, second.host);
  });

  it('lets only one of two concurrent renewals start', async () => {
    const d = (await s.request('POST', '/domains', { ...A(), body: { Name: 'race.test' } })).body;
    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: d.DKIMPendingTextValue }]);
    await s.request('PUT', `/domains/${d.ID}/verifyDkim`, A());
    const both = await Promise.all([1, 2].map(() => s.request('POST', `/domains/${d.ID}/rotatedkim`, A())));
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 422]);
    assert.deepEqual(both.map((r) => r.body.ErrorCode ?? 0).sort(), [0, 505]);
    const pending = await s.ctx.db.selectFrom('dkim_keys').select('id').where('domain_id', '=', d.ID).where('state', '=', 'pending').execute();
    assert.equal(pending.length, 1);
  });

  it('keeps SafeToRemoveRevokedKeyFromDNS false while mail accepted before the rotation is queued', async () => {
    const id = (await s.request('POST', '/domains', { ...A(), body: { Name: 'queued.test' } })).body.ID;
    let d = (await s.request('GET', `/domains/${id}`, A())).body;
    publish(d.DKIMPendingHost, d.DKIMPendingTextValue);
    await s.request('PUT', `/domains/${id}/verifyDkim`, A());
    // Accepted but not yet delivered (the test drives the queue): a deliver job waits.
    const sent = await s.request('POST', '/email', { body: { From: 'app@queued.test', To: 'user@far.test', Subject: 'hi', TextBody: 'x' } });
    assert.equal(sent.status, 200, sent.text);
    s.clock.advance(1000);
    d = (await s.request('POST', `/domains/${id}/rotatedkim`, A())).body;
    publish(d.DKIMPendingHost, d.DKIMPendingTextValue);
    d = (await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body;
    assert.notEqual(d.DKIMRevokedHost, '');
    assert.equal(d.SafeToRemoveRevokedKeyFromDNS, false);
    // Once that delivery is done, the old key may go.
    await s.drain();
    assert.equal(sink.messages.filter((m) => m.to.includes('user@far.test')).length, 1);
    await s.ctx.scheduler.runAll();
    const key = await s.ctx.db.selectFrom('dkim_keys').select('removable_at').where('domain_id', '=', id).where('state', '=', 'revoked').executeTakeFirstOrThrow();
    assert.notEqual(key.removable_at, null, 'the periodic task recorded it');
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.SafeToRemoveRevokedKeyFromDNS, true);
  });

  it('activates a published pending key from the periodic re-check', async () => {
    const d = (await s.request('POST', '/domains', { ...A(), body: { Name: 'later.test' } })).body;
    await s.ctx.scheduler.runAll();
    assert.equal((await s.request('GET', `/domains/${d.ID}`, A())).body.DKIMVerified, false);
    publish(d.DKIMPendingHost, d.DKIMPendingTextValue);
    s.clock.advance(5 * 60_000);
    await s.ctx.scheduler.runAll();
    const after = (await s.request('GET', `/domains/${d.ID}`, A())).body;
    assert.equal(after.DKIMVerified, true);
    assert.equal(after.DKIMHost, d.DKIMPendingHost);
  });

  it('verifies SPF through the DNS record', async () => {
    const id = (await s.request('POST', '/domains', { ...A(), body: { Name: 'spf.test' } })).body.ID;
    let r = await s.request('POST', `/domains/${id}/verifyspf`, A());
    assert.deepEqual(r.body, { SPFHost: 'spf.test', SPFVerified: false, SPFTextValue: `v=spf1 a mx include:${SPF} ~all` });
    dns.set('spf.test', [{ type: 'TXT', data: 'v=spf1 include:corp.spf.test -all' }]);
    dns.set('corp.spf.test', [{ type: 'TXT', data: `v=spf1 ip4:192.0.2.0/24 include:${SPF} -all` }]);
    r = await s.request('POST', `/domains/${id}/verifySpf`, A());
    assert.equal(r.body.SPFVerified, true);
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.SPFVerified, true);
    // The record is taken away: the next check says so.
    dns.set('spf.test', [{ type: 'TXT', data: 'v=spf1 -all' }]);
    assert.equal((await s.request('POST', `/domains/${id}/verifyspf`, A())).body.SPFVerified, false);
  });

  it('verifies a custom Return-Path by its CNAME and then uses it as envelope domain', async () => {
    const id = (await s.request('POST', '/domains', { ...A(), body: { Name: 'rp.test' } })).body.ID;
    assert.equal((await s.request('PUT', `/domains/${id}`, { ...A(), body: { ReturnPathDomain: 'rp.test' } })).body.ErrorCode, 511);
    assert.equal((await s.request('PUT', `/domains/${id}`, { ...A(), body: { ReturnPathDomain: 'pm.evil-rp.test' } })).body.ErrorCode, 511);
    let d = (await s.request('PUT', `/domains/${id}`, { ...A(), body: { ReturnPathDomain: 'PM-Bounces.rp.test' } })).body;
    assert.equal(d.ReturnPathDomain, 'pm-bounces.rp.test');
    assert.equal(d.ReturnPathDomainVerified, false);
    // A CNAME elsewhere does not verify.
    dns.set('pm-bounces.rp.test', [{ type: 'CNAME', domain: 'bounces.other.test' }]);
    assert.equal((await s.request('PUT', `/domains/${id}/verifyReturnPath`, A())).body.ReturnPathDomainVerified, false);
    assert.equal(await envelopeDomain(s.ctx, s.accountId, 'a@rp.test'), RP);
    dns.set('pm-bounces.rp.test', [{ type: 'CNAME', domain: `${RP}.` }]);
    d = (await s.request('PUT', `/domains/${id}/verifyReturnPath`, A())).body;
    assert.equal(d.ReturnPathDomainVerified, true);
    assert.equal(await envelopeDomain(s.ctx, s.accountId, 'a@rp.test'), 'pm-bounces.rp.test');
    assert.equal((await s.request('GET', '/domains?count=500&offset=0', A())).body.Domains.find((x: any) => x.ID === id).ReturnPathDomainVerified, true);
    // The CNAME is removed: the hourly re-check stops using it, so bounces are not lost.
    dns.remove('pm-bounces.rp.test');
    s.clock.advance(61 * 60_000);
    await s.ctx.scheduler.runAll();
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.ReturnPathDomainVerified, false);
    assert.equal(await envelopeDomain(s.ctx, s.accountId, 'a@rp.test'), RP);
  });

  it('lists with count/offset and list fields only, isolated per account, and deletes', async () => {
    const all = await s.request('GET', '/domains?Count=500&Offset=0', A());
    assert.equal(all.status, 200);
    assert.equal(all.body.TotalCount, all.body.Domains.length);
    assert.deepEqual(Object.keys(all.body.Domains[0]).sort(), ['DKIMVerified', 'ID', 'Name', 'ReturnPathDomainVerified', 'SPFVerified', 'WeakDKIM']);
    const page = await s.request('GET', '/domains?count=2&offset=1', A());
    assert.deepEqual(page.body.Domains.map((x: any) => x.ID), all.body.Domains.slice(1, 3).map((x: any) => x.ID));
    assert.equal((await s.request('GET', '/domains?count=501&offset=0', A())).status, 422);
    assert.equal((await s.request('GET', '/domains?offset=0', A())).status, 422);

    // Another account sees none of them and cannot touch them.
    const other = await s.ctx.db.insertInto('accounts').values({ name: 'Other', created_at: s.clock.now() }).returning('id').executeTakeFirstOrThrow();
    const otherToken = 'other-account-token-000000000000001';
    await storeToken(s.ctx.db, { kind: 'account', accountId: other.id, serverId: null, value: otherToken, now: s.clock.now() });
    const theirs = await s.request('GET', '/domains?count=500&offset=0', { accountToken: otherToken });
    assert.deepEqual(theirs.body, { TotalCount: 0, Domains: [] });
    const target = all.body.Domains[0].ID;
    for (const [m, p] of [['GET', ''], ['DELETE', ''], ['PUT', '/verifyDkim'], ['POST', '/rotatedkim'], ['POST', '/verifyspf']] as const) {
      const r = await s.request(m, `/domains/${target}${p}`, { accountToken: otherToken });
      assert.equal(r.body.ErrorCode, 510, `${m} ${p}`);
    }
    // The same name is free for the other account.
    assert.equal((await s.request('POST', '/domains', { accountToken: otherToken, body: { Name: 'example.test' } })).status, 200);

    const del = await s.request('DELETE', `/domains/${target}`, A());
    assert.deepEqual(del.body, { ErrorCode: 0, Message: `Domain ${all.body.Domains[0].Name} removed.` });
    assert.equal((await s.request('GET', `/domains/${target}`, A())).body.ErrorCode, 510);
    assert.equal((await s.request('GET', '/domains/abc', A())).status, 422);
    const left = await s.ctx.db.selectFrom('dkim_keys').select('id').where('domain_id', '=', target).execute();
    assert.equal(left.length, 0);
  });
});
