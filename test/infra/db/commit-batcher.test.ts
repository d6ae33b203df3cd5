// tier: unit
// The one group-commit primitive, driven with a commit function of its own (no database): what users of
// the sending, delivery-outcome and webhook-outcome batchers rely on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommitBatcher } from '../../../src/infra/db/commit-batcher.js';

describe('CommitBatcher', () => {
  it('commits items submitted together as one group, up to maxWeight, and answers each with its result', async () => {
    const groups: number[][] = [];
    const b = new CommitBatcher<number, string>({
      name: 'test',
      maxWeight: 5,
      weight: (n) => n,
      commit: async (items) => {
        groups.push(items);
        return items.map((n) => `r${n}`);
      },
    });
    const answers = await Promise.all([1, 2, 2, 3, 9].map((n) => b.submit(n)));
    assert.deepEqual(answers, ['r1', 'r2', 'r2', 'r3', 'r9']);
    // 1+2+2 fill the first group; 3 starts the next; 9 is over the limit alone but still goes (at least one).
    assert.deepEqual(groups, [[1, 2, 2], [3], [9]]);
    assert.deepEqual(b.stats, { transactions: 3, requests: 5 });
  });

  it('commits the items of a failed group one by one, so only the bad one fails', async () => {
    const seen: number[][] = [];
    const b = new CommitBatcher<number>({
      name: 'test',
      commit: async (items) => {
        seen.push(items);
        if (items.includes(2)) throw new Error('bad item');
        return items.map(() => undefined);
      },
    });
    const r = await Promise.allSettled([1, 2, 3].map((n) => b.submit(n)));
    assert.deepEqual(r.map((x) => x.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual(seen, [[1, 2, 3], [1], [2], [3]]);
  });

  it('commits an item once more when retryAlone says its failure was a lost race', async () => {
    let tries = 0;
    const b = new CommitBatcher<string, string>({
      name: 'test',
      retryAlone: (_item, err) => (err as Error).message === 'race',
      commit: async (items) => {
        if (tries++ === 0) throw new Error('race');
        return items.map((i) => `${i} replayed`);
      },
    });
    assert.equal(await b.submit('k'), 'k replayed');
    assert.equal(tries, 2);
  });

  it('answers a group only after its sync, and writes the next group after that sync', async () => {
    const log: string[] = [];
    let finishSync!: () => void;
    const b = new CommitBatcher<string, string>({
      name: 'test',
      commit: async (items) => {
        log.push(`commit ${items.join('+')}`);
        return items;
      },
      sync: () => {
        log.push('sync');
        return new Promise<void>((resolve) => (finishSync = () => (log.push('synced'), resolve())));
      },
    });
    const first = b.submit('a').then((r) => log.push(`answer ${r}`));
    await new Promise((r) => setImmediate(r));
    const second = b.submit('b').then((r) => log.push(`answer ${r}`));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(log, ['commit a', 'sync'], 'nothing answered, nothing more written before the sync');
    finishSync();
    await first;
    await new Promise((r) => setImmediate(r));
    finishSync();
    await second;
    await b.drain();
    const at = (entry: string) => log.indexOf(entry);
    assert.ok(at('answer a') > at('synced') && at('commit b') > at('synced'), log.join(', '));
    assert.deepEqual(log.slice(-3), ['sync', 'synced', 'answer b']);
  });

  it('rejects a group whose sync fails, and carries on with the next', async () => {
    let fail = true;
    const b = new CommitBatcher<number, number>({
      name: 'test',
      commit: async (items) => items,
      sync: async () => {
        if (fail) {
          fail = false;
          throw new Error('disk gone');
        }
      },
    });
    await assert.rejects(b.submit(1), /disk gone/);
    assert.equal(await b.submit(2), 2);
  });
});
