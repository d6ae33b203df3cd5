// tier: unit
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { checkSpf, spfTextValue } from '../../../src/infra/dns/spf.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

const INCLUDE = 'spf.mailroom.test';

describe('SPF evaluation against a real DNS server', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;
  before(async () => {
    dns = await startDnsServer();
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.address]);
  });
  after(() => dns.close());

  const spf = (name: string, record: string, ...others: string[]) =>
    dns.set(name, [record, ...others].map((data) => ({ type: 'TXT' as const, data })));
  const check = (domain: string) => checkSpf(resolver, domain, INCLUDE);

  it('passes with the suggested record, pasted as is', async () => {
    spf('direct.test', spfTextValue(INCLUDE), 'google-site-verification=abc');
    const r = await check('direct.test');
    assert.equal(r.result, 'pass', r.reason);
    assert.equal(r.lookups, 3); // a, mx, include
  });

  it('fails without a record, with a record lacking the include, and with two records', async () => {
    assert.equal((await check('nothing.test')).result, 'fail');
    spf('other.test', 'v=spf1 include:_spf.google.com ~all');
    spf('_spf.google.com', 'v=spf1 ip4:192.0.2.0/24 ~all');
    assert.equal((await check('other.test')).result, 'fail');
    spf('two.test', `v=spf1 include:${INCLUDE} ~all`, 'v=spf1 -all');
    const two = await check('two.test');
    assert.equal(two.result, 'fail');
    assert.match(two.reason, /permerror/);
  });

  it('follows nested includes and redirect', async () => {
    spf('nested.test', 'v=spf1 ip4:192.0.2.1 include:level1.nested.test -all');
    spf('level1.nested.test', 'v=spf1 include:level2.nested.test ?all');
    spf('level2.nested.test', `v=spf1 include:${INCLUDE.toUpperCase()}. -all`);
    assert.equal((await check('nested.test')).result, 'pass');
    spf('redir.test', 'v=spf1 mx redirect=policy.redir.test');
    spf('policy.redir.test', `v=spf1 include:${INCLUDE} -all`);
    assert.equal((await check('redir.test')).result, 'pass');
  });

  it('does not count what an evaluation never reaches, or a non-pass qualifier', async () => {
    spf('allfirst.test', `v=spf1 -all include:${INCLUDE}`);
    assert.equal((await check('allfirst.test')).result, 'fail');
    spf('softinc.test', `v=spf1 ~include:${INCLUDE} -all`);
    assert.equal((await check('softinc.test')).result, 'fail');
    // RFC 7208 6.1: redirect is ignored when the record has an all mechanism.
    spf('ignored.test', 'v=spf1 redirect=policy.redir.test ~all');
    assert.equal((await check('ignored.test')).result, 'fail');
    // An include of a name without a record is a permerror (RFC 7208 5.2).
    spf('dangling.test', `v=spf1 include:gone.test include:${INCLUDE} -all`);
    assert.equal((await check('dangling.test')).result, 'fail');
  });

  it('holds the RFC 7208 4.6.4 limit of 10 DNS-querying terms, at its boundary', async () => {
    // Nine lookups before our include: the include is the tenth and still counts.
    spf('ten.test', `v=spf1 a mx ptr exists:x.ten.test a:b.ten.test mx:c.ten.test include:n1.ten.test include:${INCLUDE} -all`);
    spf('n1.ten.test', 'v=spf1 a mx -all');
    const ten = await check('ten.test');
    assert.equal(ten.result, 'pass', ten.reason);
    assert.equal(ten.lookups, 10);
    // One more term before it: the eleventh lookup is a permerror.
    spf('eleven.test', `v=spf1 a a mx ptr exists:x.ten.test a:b.ten.test mx:c.ten.test include:n1.ten.test include:${INCLUDE} -all`);
    const eleven = await check('eleven.test');
    assert.equal(eleven.result, 'fail');
    assert.match(eleven.reason, /more than 10/);
  });

  it('stops an include loop at the limit', async () => {
    spf('loop-a.test', 'v=spf1 include:loop-b.test -all');
    spf('loop-b.test', 'v=spf1 include:loop-a.test -all');
    const r = await check('loop-a.test');
    assert.equal(r.result, 'fail');
    assert.match(r.reason, /more than 10/);
  });

  it('reports a DNS failure as an error, not as a fail', async () => {
    const dead = new Resolver({ timeout: 200, tries: 1 });
    dead.setServers(['127.0.0.1:1']);
    assert.equal((await checkSpf(dead, 'direct.test', INCLUDE)).result, 'error');
  });
});
