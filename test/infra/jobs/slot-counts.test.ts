// tier: unit
// The runner's bookkeeping (src/infra/jobs/slot-counts.ts), without a database: how much a claim may take,
// which reservations are refused, and the order in which jobs waiting for their group get a place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SlotCounts, type QueueLimits } from '../../../src/infra/jobs/slot-counts.js';

const counts = (limits: QueueLimits) => new SlotCounts<string>(() => limits);

describe('slot counts', () => {
  it('claims for up to the free slots, at most 100, and only once a quarter of the slots is free', () => {
    const c = counts({ concurrency: 8, groupConcurrency: Infinity });
    assert.deepEqual(c.claimRoom('q'), { limit: 8, held: new Map(), full: [] });
    for (let i = 0; i < 7; i++) c.take('q', null);
    assert.equal(c.claimRoom('q'), null, 'one of 8 free: less than a quarter');
    c.settle('q');
    assert.equal(c.claimRoom('q')?.limit, 2);
    for (let i = 0; i < 6; i++) c.settle('q');
    assert.equal(c.inFlight('q'), 0);
    assert.equal(counts({ concurrency: 500, groupConcurrency: Infinity }).claimRoom('q')?.limit, 100);
  });

  it("gives a claim each group's jobs held here and leaves full groups out", () => {
    const c = counts({ concurrency: 16, groupConcurrency: 2 });
    c.take('q', 'a');
    c.take('q', 'a');
    c.take('q', 'b');
    c.take('other', 'a');
    const room = c.claimRoom('q')!;
    assert.deepEqual([...room.held].sort(), [['a', 2], ['b', 1]]);
    assert.deepEqual(room.full, ['a']);
    assert.equal(room.limit, 13);
  });

  it('counts a reservation as in flight, refuses past the concurrency, and gives it back on unreserve', () => {
    const c = counts({ concurrency: 2, groupConcurrency: 2 });
    assert.equal(c.reserve('q', 'g'), 'run');
    assert.equal(c.reserve('q', null), 'run');
    assert.equal(c.reserve('q', 'g'), null, 'no third slot at concurrency 2');
    assert.equal(c.claimRoom('q'), null, 'a claim gets no room either');
    c.unreserve('q', null, 'run');
    assert.equal(c.inFlight('q'), 1);
    assert.deepEqual(c.group('q', 'g'), { running: 1, waiting: 0 });
  });

  it('lets as many jobs wait for a full group as it runs, and hands places to them oldest first', () => {
    const c = counts({ concurrency: 16, groupConcurrency: 2 });
    c.take('q', 'g');
    c.take('q', 'g');
    assert.equal(c.reserve('q', 'g'), 'wait');
    assert.equal(c.reserve('q', 'g'), 'wait');
    assert.equal(c.reserve('q', 'g'), null, 'no more waiting than the group runs at once');
    assert.deepEqual(c.group('q', 'g'), { running: 2, waiting: 2 });
    assert.deepEqual(c.claimRoom('q')!.full, ['g']);
    assert.equal(c.admit('q', 'g', 'first'), false, 'the group is full: it queues');
    assert.equal(c.admit('q', 'g', 'second'), false);
    assert.equal(c.leaveGroup('q', 'g'), 'first');
    assert.deepEqual(c.group('q', 'g'), { running: 2, waiting: 1 });
    assert.equal(c.leaveGroup('q', 'g'), 'second');
    assert.equal(c.leaveGroup('q', 'g'), undefined);
    assert.deepEqual(c.group('q', 'g'), { running: 1, waiting: 0 });
  });

  it('admits a waiting job at once when its group has a place by then, and forgets empty groups', () => {
    const c = counts({ concurrency: 16, groupConcurrency: 1 });
    c.take('q', 'g');
    assert.equal(c.reserve('q', 'g'), 'wait');
    assert.equal(c.leaveGroup('q', 'g'), undefined, 'nobody queued yet');
    assert.equal(c.admit('q', 'g', 'late'), true, 'the place freed before the job was handed over');
    assert.deepEqual(c.group('q', 'g'), { running: 1, waiting: 0 });
    c.leaveGroup('q', 'g');
    c.settle('q');
    c.settle('q');
    assert.deepEqual(c.claimRoom('q'), { limit: 16, held: new Map(), full: [] });
  });

  it('applies no group limit to a queue without one', () => {
    const c = counts({ concurrency: 4, groupConcurrency: Infinity });
    for (let i = 0; i < 4; i++) assert.equal(c.reserve('q', 'g'), 'run');
    assert.equal(c.reserve('q', 'g'), null);
    assert.deepEqual(c.claimRoom('q'), null);
  });
});
