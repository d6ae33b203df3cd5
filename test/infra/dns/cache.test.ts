// tier: unit
// The DNS answer cache of inbound mail authentication, against a real DNS server on loopback.
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { cachedResolve } from '../../../src/infra/dns/cache.js';
import { TestClock } from '../../helpers/clock.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';

describe('cached DNS answers', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;
  before(async () => {
    dns = await startDnsServer();
    resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([dns.address]);
  });
  after(() => dns.close());

  it('asks once per name within the TTL, shares concurrent questions, and asks again after it', async () => {
    dns.set('a.example', [{ type: 'TXT', data: 'v=spf1 -all' }]);
    const clock = new TestClock();
    clock.freeze();
    const resolve = cachedResolve(resolver, clock, 60_000);
    const asked = () => dns.queries.filter((q) => q === 'a.example').length;
    const answers = await Promise.all([resolve('a.example', 'TXT'), resolve('A.example', 'TXT'), resolve('a.example', 'TXT')]);
    assert.deepEqual(answers[0], [['v=spf1 -all']]);
    assert.equal(asked(), 1);
    await resolve('a.example', 'TXT');
    assert.equal(asked(), 1);
    dns.set('a.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
    clock.advance(60_001);
    assert.deepEqual(await resolve('a.example', 'TXT'), [['v=spf1 ip4:127.0.0.1 -all']]);
    assert.equal(asked(), 2);
  });

  it('caches "no such name" too', async () => {
    const clock = new TestClock();
    const resolve = cachedResolve(resolver, clock);
    const asked = () => dns.queries.filter((q) => q === '_dmarc.none.example').length;
    for (let i = 0; i < 3; i++) await assert.rejects(resolve('_dmarc.none.example', 'TXT'), (e: { code?: string }) => e.code === 'ENOTFOUND');
    assert.equal(asked(), 1);
  });
});
