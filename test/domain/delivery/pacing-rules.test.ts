// tier: unit
// The pacing rules on their own (src/domain/delivery/pacing): which replies are throttling, how long a
// destination pauses, how its rate halves and recovers, with the time handed in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseReply } from '../../../src/infra/smtp-client/replies.js';
import { isThrottling } from '../../../src/domain/delivery/pacing/throttle.js';
import { afterDeliveries, afterThrottle, backoffMs, connectionsAllowed, DEFAULT_PACE_LIMITS, intervalMs, type PaceState } from '../../../src/domain/delivery/pacing/pace.js';

const MIN = 60_000;
const limits = { ...DEFAULT_PACE_LIMITS, maxConnections: 8, baseBackoffMs: MIN, maxBackoffMs: 30 * MIN };

describe('throttling replies', () => {
  const throttling = [
    '421 4.7.0 Try again later, closing connection. (EHLO) - gsmtp',
    '450 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address. - gsmtp',
    '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints',
    '451 4.7.500 Server busy. Please try again later from [192.0.2.1]. (S77719)',
    '421 Too many concurrent SMTP connections from this IP address; please try again later.',
    '452 Too many recipients received this hour',
    '454 Throttling failure: Maximum sending rate exceeded.',
    '450 Rate limited, please slow down',
  ];
  const not = [
    '450 4.7.1 <a@b.example>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/',
    '451 4.7.1 Greylisting in action, please come back later',
    '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
    '450 4.2.1 Mailbox busy, try later',
    '451 4.3.0 Temporary local problem',
    '550 5.7.1 Service unavailable; client host blocked using Spamhaus, try again later',
    '250 2.0.0 Ok: queued',
  ];
  for (const t of throttling) it(`throttling: ${t.slice(0, 60)}`, () => assert.equal(isThrottling(parseReply(t)), true));
  for (const t of not) it(`not throttling: ${t.slice(0, 60)}`, () => assert.equal(isThrottling(parseReply(t)), false));
});

describe('pace of a throttling destination', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const throttle = (s: PaceState | null, now: number, sentLastMinute = 40, admittedAt = now) => afterThrottle(s, limits, { now, admittedAt, sentLastMinute, reply: '421 4.7.0 Try again later' });

  it('pauses for a backoff that doubles with each throttle in a row, up to the cap', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 10].map((n) => backoffMs(n, limits) / MIN), [1, 2, 4, 8, 16, 30, 30, 30]);
    let s = throttle(null, t0);
    assert.equal(s.strikes, 1);
    assert.equal(s.pausedUntil, t0 + MIN);
    s = throttle(s, t0 + MIN + 1);
    assert.equal(s.strikes, 2);
    assert.equal(s.pausedUntil, t0 + MIN + 1 + 2 * MIN);
  });

  it('halves the rate it was really sent at, never below the floor, and remembers where to recover to', () => {
    let s = throttle(null, t0, 40);
    assert.equal(s.ratePerMinute, 20);
    assert.equal(s.ceilingPerMinute, 40);
    assert.equal(intervalMs(s, limits), 3000);
    s = throttle(s, t0 + 5 * MIN, 40);
    assert.equal(s.ratePerMinute, 10, 'from the allowed 20, not the 40 sent before');
    assert.equal(s.ceilingPerMinute, 40);
    for (let i = 0; i < 10; i++) s = throttle(s, t0 + (10 + i) * 60 * MIN, 40);
    assert.equal(s.ratePerMinute, 1);
    const fixed = afterThrottle(null, { ...limits, maxRatePerMinute: 100 }, { now: t0, admittedAt: t0, sentLastMinute: 500, reply: '421' });
    assert.equal(fixed.ratePerMinute, 50, 'the configured maximum caps the rate halved');
    assert.equal(fixed.ceilingPerMinute, 100);
  });

  it('does not count again the jobs that were already in flight when the throttle was recorded', () => {
    const s = throttle(null, t0);
    assert.equal(throttle(s, t0 + 10, 40, t0 - 5), s);
    assert.equal(throttle(s, t0 + 10, 40, t0), s, 'let through in the same millisecond: under way too');
    assert.equal(throttle(s, t0 + 10, 40, t0 + 5).strikes, 2);
    assert.equal(afterDeliveries(s, 5, t0 + 10, t0 - 5), s, 'deliveries of jobs under way at the throttle do not count');
  });

  it('recovers additively with each delivered message, clears the strikes, and drops the state at its ceiling', () => {
    let s: PaceState | null = throttle(throttle(null, t0, 40), t0 + 2 * MIN, 40);
    assert.equal(s.strikes, 2);
    assert.equal(s.ratePerMinute, 10);
    assert.equal(connectionsAllowed(s, limits), 2);
    s = afterDeliveries(s, 1, t0 + 5 * MIN, t0 + 5 * MIN);
    assert.equal(s?.strikes, 0);
    assert.equal(s?.ratePerMinute, 11);
    s = afterDeliveries(s, 20, t0 + 6 * MIN, t0 + 6 * MIN);
    assert.equal(s?.ratePerMinute, 31);
    assert.equal(connectionsAllowed(s, limits), 6);
    assert.equal(afterDeliveries(s, 9, t0 + 7 * MIN, t0 + 7 * MIN), null, 'back at 40 a minute: no longer paced');
    assert.equal(connectionsAllowed(null, limits), 8);
    assert.equal(intervalMs(null, limits), 0, 'no fixed rate by default');
    assert.equal(intervalMs(null, { ...limits, maxRatePerMinute: 120 }), 500);
  });

  it('a first throttle on the very first message still leaves room to recover', () => {
    const s = throttle(null, t0, 0);
    assert.equal(s.ratePerMinute, 1);
    assert.equal(s.ceilingPerMinute, 2);
    assert.equal(afterDeliveries(s, 1, t0 + 2 * MIN, t0 + 2 * MIN), null);
  });
});
