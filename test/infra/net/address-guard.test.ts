// tier: unit
// The address guard's table (issue 27): every block IANA's IPv4 and IPv6 Special-Purpose Address Registries
// mark not globally reachable is refused, from its first address to its last, and the addresses just
// outside it (and the globally reachable entries carved out of it) are not; this host's own addresses are
// refused too.
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, it } from 'node:test';
import { checkTargetUrl, forbiddenReason, isForbiddenAddress, setInterfaceSource } from '../../../src/infra/net/address-guard.js';

// [block, first address, last address, address just below, address just above] (null: nothing to test there).
const BLOCKS: Array<[string, string, string, string | null, string | null]> = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255', null, '1.0.0.0'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', '9.255.255.255', '11.0.0.0'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255', '100.63.255.255', '100.128.0.0'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255', '126.255.255.255', '128.0.0.0'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255', '169.253.255.255', '169.255.0.0'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255', '172.15.255.255', '172.32.0.0'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255', '191.255.255.255', '192.0.1.0'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255', '192.0.1.255', '192.0.3.0'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255', '192.88.98.255', '192.88.100.0'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255', '192.167.255.255', '192.169.0.0'],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255', '198.17.255.255', '198.20.0.0'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255', '198.51.99.255', '198.51.101.0'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255', '203.0.112.255', '203.0.114.0'],
  ['224.0.0.0/4 + 240.0.0.0/4', '224.0.0.0', '255.255.255.255', '223.255.255.255', null],
  ['::/128, ::1/128', '::', '::1', null, null],
  ['::ffff:0:0/96 (judged by its IPv4)', '::ffff:127.0.0.1', '::ffff:192.0.2.1', null, '::ffff:8.8.8.8'],
  ['64:ff9b::/96 (judged by its IPv4)', '64:ff9b::c000:201', '64:ff9b::a00:1', null, '64:ff9b::808:808'],
  ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', null, null],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff', null, null],
  ['100:0:0:1::/64', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff', null, null],
  ['2001::/23', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2001:200::'],
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::'],
  ['2002::/16 (6to4, judged by its IPv4)', '2002:7f00:1::', '2002:c000:201::1', null, '2002:808:808::1'],
  ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff:1000::'],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null, null],
];

/** Globally reachable entries inside refused blocks (IANA's "Globally Reachable: True"). */
const CARVED_OUT = ['192.0.0.9', '192.0.0.10', '2001:1::1', '2001:1::2', '2001:1::3', '2001:3::1', '2001:4:112::1', '2001:20::1', '2001:2f:ffff::1', '2001:30::1'];
/** Their neighbours, still inside the refused block. */
const NEXT_TO_CARVED = ['192.0.0.8', '192.0.0.11', '192.0.0.170', '2001:1::4', '2001::1', '2001:2::1', '2001:4:113::1', '2001:10::1', '2001:40::1'];

describe('address guard: IANA special-purpose ranges', () => {
  afterEach(() => setInterfaceSource(null));

  for (const [block, first, last, below, above] of BLOCKS) {
    it(`refuses ${block} from first to last address, and not its neighbours`, () => {
      for (const a of [first, last]) assert.equal(forbiddenReason(a), 'a private or reserved address', a);
      for (const a of [below, above]) if (a) assert.equal(isForbiddenAddress(a), false, a);
    });
  }

  it('allows the globally reachable entries carved out of refused blocks, not their neighbours', () => {
    for (const a of CARVED_OUT) assert.equal(isForbiddenAddress(a), false, a);
    for (const a of NEXT_TO_CARVED) assert.equal(isForbiddenAddress(a), true, a);
  });

  it('refuses IPv6 outside global unicast 2000::/3, and Teredo (2001::/32) whatever it embeds', () => {
    for (const a of ['1fff:ffff::1', '4000::1', 'e000::1', 'fec0::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7']) assert.equal(isForbiddenAddress(a), true, a);
    for (const a of ['2000::1', '2606:4700:4700::1111', '3ffe:ffff::1', '2a00:1450:4001::1']) assert.equal(isForbiddenAddress(a), false, a);
  });

  it("refuses this host's own addresses, in any spelling", () => {
    setInterfaceSource(() => ['8.8.4.4', '2a00:1450:4001::99', 'fe80::1%eth0']);
    for (const a of ['8.8.4.4', '::ffff:8.8.4.4', '[2a00:1450:4001::99]', '2A00:1450:4001:0::99']) assert.equal(forbiddenReason(a), 'an address of this host', a);
    assert.equal(isForbiddenAddress('8.8.8.8'), false);
    assert.equal(checkTargetUrl('http://8.8.4.4:8080/x', false), 'Url points at 8.8.4.4, an address of this host.');
    assert.equal(checkTargetUrl('http://8.8.4.4:8080/x', true), null, 'MAILROOM_WEBHOOK_ALLOW_PRIVATE allows it');
    // The real interfaces: every one of them is refused.
    setInterfaceSource(null);
    for (const i of Object.values(networkInterfaces()).flat()) if (i) assert.equal(isForbiddenAddress(i.address), true, i.address);
  });

  it('refuses every spelling of a loopback URL: decimal, octal, hex, short, IPv4-mapped, -compatible, -translated, NAT64, 6to4', () => {
    const urls = [
      'http://2130706433/', 'http://0x7f.1/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://017700000001/', 'http://127.1/', 'http://0/',
      'http://127.0.0.1./', 'http://%31%32%37.0.0.1/', 'http://\uff11\uff12\uff17.0.0.1/', 'http://user:pass@127.0.0.1:8080/x',
      'http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:ffff:7f00:1]/', 'http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/', 'http://[2002:7f00:1::1]/', 'http://[::]/', 'http://[0::1]/',
    ];
    for (const url of urls) assert.match(checkTargetUrl(url, false, { credentialsInUrl: true }) ?? '', /a private or reserved address/, url);
    for (const url of ['http://localhost/', 'http://LOCALHOST./', 'http://hooks.localhost/']) assert.equal(checkTargetUrl(url, false), 'Url points at localhost.', url);
  });

  it('checks a URL literal at save time: documentation ranges and every IPv4 spelling', () => {
    for (const url of ['http://192.0.2.1/', 'https://198.51.100.7:8443/x', 'http://203.0.113.9/', 'http://[2001:db8::1]/', 'http://[3fff::1]/', 'http://3221225985/', 'http://0xc0.0.2.1/', 'http://[::ffff:c000:201]/']) {
      assert.match(checkTargetUrl(url, false) ?? '', /a private or reserved address/, url);
    }
    assert.equal(checkTargetUrl('https://93.184.216.34/hook', false), null);
    assert.equal(checkTargetUrl('https://hooks.example.com/x', false), null, 'a name is checked when connected to');
  });
});
