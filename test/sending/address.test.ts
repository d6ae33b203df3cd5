import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressError, parseAddressList, parseSingleMailbox } from '../../src/mail/address.js';

describe('RFC 5322 address lists', () => {
  it('reads bare addresses, display names, quoted commas and escapes', () => {
    const list = parseAddressList('a@example.com, Bob <bob@example.com>,"Doe, Jane" <jane@example.com>, "Say \\"hi\\"" <q@example.com>,');
    assert.deepEqual(
      list.map((m) => [m.name, m.address]),
      [
        ['', 'a@example.com'],
        ['Bob', 'bob@example.com'],
        ['Doe, Jane', 'jane@example.com'],
        ['Say "hi"', 'q@example.com'],
      ],
    );
  });

  it('drops comments, reads groups and obs-phrase dots', () => {
    const list = parseAddressList('team: a@example.com, J. Smith <b@example.com>; c@example.com (the boss)');
    assert.deepEqual(
      list.map((m) => [m.name, m.address]),
      [
        ['', 'a@example.com'],
        ['J. Smith', 'b@example.com'],
        ['', 'c@example.com'],
      ],
    );
  });

  it('turns IDN domains into lowercase A-labels and keeps the local part', () => {
    const m = parseSingleMailbox('Jöran <Jo.Ran@BÜCHER.example>');
    assert.equal(m.name, 'Jöran');
    assert.equal(m.ascii, 'Jo.Ran@xn--bcher-kva.example');
    assert.equal(m.domain, 'xn--bcher-kva.example');
  });

  it('accepts a quoted local part', () => {
    assert.equal(parseSingleMailbox('"john doe"@example.com').ascii, '"john doe"@example.com');
  });

  it('refuses what is not an address', () => {
    for (const bad of [
      'plainaddress',
      '@example.com',
      'a@',
      'a@b',
      'a@@example.com',
      'a..b@example.com',
      '.a@example.com',
      'a b@example.com',
      'Smith, John <a@example.com>',
      'Bob <a@example.com',
      'Bob a@example.com>',
      '"unterminated <a@example.com>',
      'a@[127.0.0.1]',
      'a@exa_mple.com',
      'a@-example.com',
      'a@example.123',
      'a@example.com\r\nBcc: x@example.com',
      'jöran@example.com',
      `${'x'.repeat(65)}@example.com`,
      `a@${'x'.repeat(250)}.com`,
      'Bob <a@example.com> trailing',
      'team: a@example.com',
    ]) {
      assert.throws(() => parseAddressList(bad), AddressError, bad);
    }
  });

  it('needs exactly one mailbox for From', () => {
    assert.throws(() => parseSingleMailbox('a@example.com, b@example.com'), AddressError);
    assert.throws(() => parseSingleMailbox(' , '), AddressError);
  });
});
