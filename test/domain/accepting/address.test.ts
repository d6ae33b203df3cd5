// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressError, parseAddressList, parseSingleMailbox } from '../../../src/infra/mime/address.js';

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

describe('parseAddressList fast path for plain addresses', () => {
  // A leading space keeps text off the fast path; the full parser trims it, so both must agree exactly.
  const slow = (text: string) => {
    try {
      return parseAddressList(` ${text}`);
    } catch (err) {
      return (err as Error).constructor.name;
    }
  };
  const fast = (text: string) => {
    try {
      return parseAddressList(text);
    } catch (err) {
      return (err as Error).constructor.name;
    }
  };

  it('answers exactly as the full parser on 20,000 seeded near-plain addresses', () => {
    let seed = 20261121;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return (seed >>> 8) % n;
    };
    const alphabet = 'abcXYZ019.-_+@!#=~"\\ (),;:<>[]éЯ\u00ad';
    const pick = (s: string, n: number) => Array.from({ length: n }, () => s[rnd(s.length)]).join('');
    for (let i = 0; i < 20_000; i++) {
      const atom = () => pick('abcXYZ019-_+', 1 + rnd(rnd(6) === 0 ? 70 : 10));
      const local = rnd(5) === 0 ? pick(alphabet, 1 + rnd(6)) : Array.from({ length: 1 + rnd(3) }, atom).join(rnd(20) === 0 ? '..' : '.');
      const labels = Array.from({ length: 1 + rnd(3) }, () => (rnd(8) === 0 ? pick(alphabet, 1 + rnd(4)) : (rnd(6) === 0 ? pick('abcz019-', 1 + rnd(70)) : pick('abcz', 1) + pick('abcz019-', rnd(6)) + pick('abcz019', 1))));
      if (rnd(10) === 0) labels.unshift('xn--' + pick('abc', 3));
      const text = `${local}@${labels.join('.')}`;
      assert.deepEqual(fast(text), slow(text), text);
    }
  });

  it('takes typical recipients', () => {
    assert.deepEqual(parseAddressList('rcpt1@example.net'), [{ name: '', address: 'rcpt1@example.net', ascii: 'rcpt1@example.net', domain: 'example.net' }]);
    assert.deepEqual(parseAddressList('Jane.Doe+tag@mail.example.co.uk')[0].domain, 'mail.example.co.uk');
  });
});
