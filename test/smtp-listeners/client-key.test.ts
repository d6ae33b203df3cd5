// tier: unit
// The address a connection limit counts: IPv4 as is, IPv6 by its /64 whatever its written form.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKey } from '../../src/smtp-listeners/client-key.js';

describe('clientKey', () => {
  it('keeps an IPv4 address, also written IPv4-mapped', () => {
    assert.equal(clientKey('192.0.2.7'), '192.0.2.7');
    assert.equal(clientKey('::ffff:192.0.2.7'), '192.0.2.7');
  });

  it('groups IPv6 addresses by /64, in any written form', () => {
    const key = '2001:db8:0:1::/64';
    for (const a of ['2001:db8:0:1::1', '2001:db8::1:0:0:0:ffff', '2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::192.0.2.1', '2001:db8:0:1:ffff::']) {
      assert.equal(clientKey(a), key, a);
    }
    assert.notEqual(clientKey('2001:db8:0:2::1'), key);
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });

  it('names a missing address', () => {
    assert.equal(clientKey(undefined), 'unknown');
  });
});
