// tier: unit
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { generateDkimKey, dkimTextValue } from '../../../src/infra/dkim/keys.js';
import { checkDkimRecord } from '../../../src/infra/dns/dkim-record.js';
import { checkCname } from '../../../src/infra/dns/cname.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

describe('DKIM record and CNAME checks against a real DNS server', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;
  before(async () => {
    dns = await startDnsServer();
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.address]);
  });
  after(() => dns.close());

  it('matches the published p= however the operator formats the record', async () => {
    const key = await generateDkimKey(Date.UTC(2026, 10, 21, 6, 0, 0));
    assert.match(key.selector, /^mr20261121060000[0-9a-f]{4}$/);
    assert.equal(key.bits, 2048);
    const host = `${key.selector}._domainkey.fmt.test`;
    assert.equal(await checkDkimRecord(resolver, host, key.publicKey), 'fail', 'nothing published');
    dns.set(host, [{ type: 'TXT', data: dkimTextValue(key.publicKey) }]);
    assert.equal(await checkDkimRecord(resolver, host, key.publicKey), 'pass');
    // Split into several strings, folded with spaces, tags in another order (RFC 6376 3.2, 3.6.2.2).
    const p = key.publicKey;
    dns.set(host, [{ type: 'TXT', data: ['v=DKIM1; h=sha256; p=', `${p.slice(0, 100)} ${p.slice(100, 300)}`, `\t${p.slice(300)} ; k=rsa`] }]);
    assert.equal(await checkDkimRecord(resolver, host, key.publicKey), 'pass');
    // Another key, another algorithm or a different version tag do not match.
    dns.set(host, [{ type: 'TXT', data: `k=ed25519; p=${p}` }]);
    assert.equal(await checkDkimRecord(resolver, host, key.publicKey), 'fail');
    dns.set(host, [{ type: 'TXT', data: `v=DKIM2; k=rsa; p=${p}` }]);
    assert.equal(await checkDkimRecord(resolver, host, key.publicKey), 'fail');
    dns.set(host, [{ type: 'TXT', data: `k=rsa; p=${p.slice(0, -8)}AAAAAAAA` }]);
    assert.equal(await checkDkimRecord(resolver, host, key.publicKey), 'fail');
  });

  it('checks a CNAME target case-insensitively and tells a DNS failure apart', async () => {
    dns.set('rp.cname.test', [{ type: 'CNAME', domain: 'Bounces.Mailroom.TEST.' }]);
    assert.equal(await checkCname(resolver, 'rp.cname.test', 'bounces.mailroom.test'), 'pass');
    assert.equal(await checkCname(resolver, 'rp.cname.test', 'other.test'), 'fail');
    assert.equal(await checkCname(resolver, 'none.cname.test', 'bounces.mailroom.test'), 'fail');
    const dead = new Resolver({ timeout: 200, tries: 1 });
    dead.setServers(['127.0.0.1:1']);
    assert.equal(await checkCname(dead, 'rp.cname.test', 'bounces.mailroom.test'), 'error');
  });
});
