// tier: unit
// The header fields a sender writes to pass for mailroom's own verdicts (RFC 8601 5), removed in one pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authservIdOf, withoutForgedHeaders } from '../../../src/domain/inbound/own-headers.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../helpers/timing.js';

const rules = { authservId: 'inbound.mailroom.example', spamScored: false };

describe('withoutForgedHeaders', () => {
  it('reads the authserv-id after comments and folding, quoted or not', () => {
    assert.equal(authservIdOf(' inbound.mailroom.example; spf=pass'), 'inbound.mailroom.example');
    assert.equal(authservIdOf(' (nested (comment) here)\r\n\tINBOUND.mailroom.example 1; none'), 'inbound.mailroom.example');
    assert.equal(authservIdOf(' "inbound.mailroom.example"; dkim=pass'), 'inbound.mailroom.example');
    assert.equal(authservIdOf(' mx.google.com;'), 'mx.google.com');
  });

  it('removes results under mailroom\'s name and Received-SPF, keeps the rest and the body byte for byte', () => {
    const raw = Buffer.from(
      'Authentication-Results: inbound.mailroom.example;\r\n spf=pass; dkim=pass; dmarc=pass\r\n' +
        'Authentication-Results: mx.forwarder.example; spf=softfail\r\n' +
        'Received-SPF: pass (forged)\r\n' +
        'X-Spam-Status: No\r\n' +
        'Subject: hi\r\n\r\n' +
        'Authentication-Results: inbound.mailroom.example; in the body\r\n',
    );
    const out = withoutForgedHeaders(raw, rules).toString();
    assert.equal(
      out,
      'Authentication-Results: mx.forwarder.example; spf=softfail\r\nX-Spam-Status: No\r\nSubject: hi\r\n\r\nAuthentication-Results: inbound.mailroom.example; in the body\r\n',
    );
    assert.equal(withoutForgedHeaders(raw, { ...rules, spamScored: true }).toString().includes('X-Spam-Status'), false);
  });

  it('returns the same buffer when nothing is removed, and handles bare LF and a message without a body', () => {
    const clean = Buffer.from('Subject: hi\r\n\r\nbody\r\n');
    assert.equal(withoutForgedHeaders(clean, rules), clean);
    assert.equal(withoutForgedHeaders(Buffer.from('Received-SPF: pass\nSubject: x\n\nbody\n'), rules).toString(), 'Subject: x\n\nbody\n');
    assert.equal(withoutForgedHeaders(Buffer.from('Subject: x\r\nReceived-SPF: pass'), rules).toString(), 'Subject: x\r\n');
  });

  it('costs time linear in the size of a hostile header section' + TIMED, LEFT_TO_PERF, () => {
    const big = Buffer.from(`Received-SPF: ${'a'.repeat(1024 * 1024)}\r\n${'X-A: b\r\n'.repeat(100_000)}${'no colon\r\n'.repeat(100_000)}:\r\n\r\n`);
    const t0 = performance.now();
    const out = withoutForgedHeaders(big, rules);
    assertWithin(performance.now() - t0, 2000, 'a hostile header section');
    assert.ok(out.length < big.length);
  });
});
