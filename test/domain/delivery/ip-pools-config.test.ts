// tier: unit
// MAILROOM_IP_POOLS as an operator writes it (JSON or the compact form), each mistake stopping the start with
// a message naming the variable and the pool; the round robin over a pool's addresses and its families; and
// the start-time check that every address belongs to this machine (loopback aliases do, 192.0.2.1 does not).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { checkPoolAddresses } from '../../../src/domain/delivery/ip-pools/check.js';
import { SourceRotation } from '../../../src/domain/delivery/ip-pools/rotation.js';

const pools = (value: string) => loadConfig({ MAILROOM_IP_POOLS: value }).ipPools;
function refused(value: string, message: RegExp): void {
  assert.throws(
    () => pools(value),
    (err: unknown) => err instanceof ConfigError && err.variable === 'MAILROOM_IP_POOLS' && message.test(err.message),
    `${value} should be refused with ${message}`,
  );
}

describe('MAILROOM_IP_POOLS', () => {
  it('is empty when unset: every connection leaves from the address the OS chooses', () => {
    assert.deepEqual(loadConfig({}).ipPools, []);
    assert.deepEqual(pools('  '), []);
  });

  it('reads the JSON form', () => {
    assert.deepEqual(
      pools('[{"name":"transactional","addresses":["192.0.2.10","2001:db8::10"],"ehlo":"MTA1.example.com"},{"name":"bulk","addresses":["[2001:db8::20]"]}]'),
      [
        { name: 'transactional', addresses: ['192.0.2.10', '2001:db8::10'], ehlo: 'mta1.example.com' },
        { name: 'bulk', addresses: ['2001:db8::20'], ehlo: null },
      ],
    );
  });

  it('reads the compact form name=ip,ip@ehlo;...', () => {
    assert.deepEqual(pools('transactional=192.0.2.10, 192.0.2.11@mta1.example.com; bulk=2001:db8::20'), [
      { name: 'transactional', addresses: ['192.0.2.10', '192.0.2.11'], ehlo: 'mta1.example.com' },
      { name: 'bulk', addresses: ['2001:db8::20'], ehlo: null },
    ]);
  });

  it('refuses each mistake, naming the pool and what is wrong', () => {
    refused('[{"name":"a","adresses":["192.0.2.1"]}]', /pool #1: unknown field "adresses"/);
    refused('[{"name":"a"', /not valid JSON/);
    refused('{"name":"a"}', /not valid JSON|expected name=ip/);
    refused('[{"name":"a","addresses":[]}]', /pool a: needs at least one address/);
    refused('a=192.0.2.300', /pool a: "192.0.2.300" is not an IPv4 or IPv6 address/);
    refused('a=mta.example.com', /pool a: "mta.example.com" is not an IPv4 or IPv6 address/);
    refused('a=0.0.0.0', /pool a: 0.0.0.0 is the wildcard address/);
    refused('a=192.0.2.1,192.0.2.1', /pool a: 192.0.2.1 is listed twice/);
    refused('a=192.0.2.1@not a host', /pool a: ehlo must be a host name/);
    refused('a=192.0.2.1@x@y', /more than one '@'/);
    refused('a=192.0.2.1;A=192.0.2.2', /pool A is defined twice/);
    refused('bad name=192.0.2.1', /pool #1: name must be/);
    refused('192.0.2.1', /pool #1: expected name=ip/);
  });
});

describe('source address rotation', () => {
  it("takes a pool's addresses in turn, among those of the peer's family", () => {
    const r = new SourceRotation();
    const pool = { name: 'p', addresses: ['192.0.2.1', '2001:db8::1', '192.0.2.2'], ehlo: null };
    assert.deepEqual([1, 2, 3].map(() => r.next(pool, '198.51.100.7')), ['192.0.2.1', '192.0.2.2', '192.0.2.1']);
    assert.deepEqual([1, 2].map(() => r.next(pool, '2001:db8::25')), ['2001:db8::1', '2001:db8::1']);
    // A relay named by host name: any address; the socket then resolves the name in that address's family.
    assert.deepEqual([1, 2, 3].map(() => r.next(pool, 'relay.example.net')), ['192.0.2.1', '2001:db8::1', '192.0.2.2']);
  });

  it('cannot reach a peer of a family the pool has no address of', () => {
    const r = new SourceRotation();
    assert.throws(() => r.next({ name: 'v4only', addresses: ['192.0.2.1'], ehlo: null }, '::1'), /IP pool v4only has no IPv6 address to reach ::1/);
  });
});

describe('start-time address check', () => {
  it('accepts addresses of this machine (loopback aliases) and names those that are not', async () => {
    await checkPoolAddresses([{ name: 'lo', addresses: ['127.0.0.2', '127.0.0.3'], ehlo: null }]);
    await assert.rejects(
      checkPoolAddresses([
        { name: 'lo', addresses: ['127.0.0.2'], ehlo: null },
        { name: 'elsewhere', addresses: ['192.0.2.1'], ehlo: null },
      ]),
      /cannot send from 192\.0\.2\.1 \(pool elsewhere: not an address of this machine\)/,
    );
  });
});
