// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iso, moscowDay, parseFilterDate } from '../../src/infra/time.js';

describe('time helpers', () => {
  it('renders ISO 8601 with an explicit offset', () => {
    assert.equal(iso(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), '2026-01-02T03:04:05.006+00:00');
    assert.equal(iso(null), null);
  });

  it('reads date filters in Moscow time', () => {
    // Midnight in Moscow is 21:00 UTC the day before.
    assert.equal(parseFilterDate('2026-03-10'), Date.UTC(2026, 2, 9, 21, 0, 0));
    assert.equal(parseFilterDate('2026-03-10', true), Date.UTC(2026, 2, 10, 20, 59, 59, 999));
    assert.equal(parseFilterDate('2026-03-10T00:00:00'), Date.UTC(2026, 2, 9, 21, 0, 0));
    assert.equal(parseFilterDate('2026-03-10T12:00:00Z'), Date.UTC(2026, 2, 10, 12, 0, 0));
    assert.equal(parseFilterDate('2026-03-10T12:00:00+01:00'), Date.UTC(2026, 2, 10, 11, 0, 0));
    assert.equal(parseFilterDate('2026-03-10T23:59:59', true), Date.UTC(2026, 2, 10, 20, 59, 59, 999));
    for (const bad of ['2026-02-30', 'yesterday', '2026-13-01', '2026-01-01T25:00:00', '']) assert.equal(parseFilterDate(bad), null, bad);
  });

  it('buckets days in Moscow time', () => {
    assert.equal(moscowDay(Date.UTC(2026, 2, 9, 20, 59, 59)), '2026-03-09');
    assert.equal(moscowDay(Date.UTC(2026, 2, 9, 21, 0, 0)), '2026-03-10');
  });
});
