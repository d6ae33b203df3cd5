// tier: unit
// CommitBatcher's `parallel` writers (the sending path on PostgreSQL): an item submitted while a group is
// being written is written at once by another writer instead of waiting for that group, up to `parallel`
// groups at a time; with the default (1) it waits. With `parallelFrom`, only when that much weight waits.
// Every item is written exactly once, and drain() waits for every writer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommitBatcher } from '../../../src/infra/db/commit-batcher.js';

function gated() {
  const started: string[][] = [];
  const gates: Array<() => void> = [];
  const commit = (items: string[]) => {
    started.push(items);
    return new Promise<void[]>((resolve) => gates.push(() => resolve(items.map(() => undefined))));
  };
  const turn = () => new Promise((r) => setImmediate(r));
  return { started, gates, commit, turn };
}

describe('CommitBatcher with parallel writers', () => {
  it('writes an item submitted during a group at once, up to `parallel` groups, then the rest as one group', async () => {
    const g = gated();
    const b = new CommitBatcher<string>({ name: 'test', parallel: 2, commit: g.commit });
    const a = b.submit('a');
    await g.turn();
    assert.deepEqual(g.started, [['a']]);
    const second = b.submit('b');
    await g.turn();
    assert.deepEqual(g.started, [['a'], ['b']], 'b did not wait for the group of a');
    const rest = ['c', 'd'].map((x) => b.submit(x));
    await g.turn();
    assert.equal(g.started.length, 2, 'both writers busy: c and d wait');
    g.gates[0]();
    await a;
    await g.turn();
    assert.deepEqual(g.started[2], ['c', 'd'], 'the first free writer takes all that waited');
    let drained = false;
    const d = b.drain().then(() => (drained = true));
    await g.turn();
    assert.equal(drained, false, 'drain() waits for the writers');
    g.gates[1]();
    g.gates[2]();
    await Promise.all([second, ...rest, d]);
    assert.deepEqual(g.started.flat().sort(), ['a', 'b', 'c', 'd'], 'each item written once');
  });

  it('with one writer (the default), an item waits for the group being written', async () => {
    const g = gated();
    const b = new CommitBatcher<string>({ name: 'test', commit: g.commit });
    const a = b.submit('a');
    await g.turn();
    const second = b.submit('b');
    await g.turn();
    assert.deepEqual(g.started, [['a']]);
    g.gates[0]();
    await a;
    await g.turn();
    assert.deepEqual(g.started, [['a'], ['b']]);
    g.gates[1]();
    await second;
  });

  it('never leaves an item unwritten when it arrives as a writer finishes', async () => {
    let groups = 0;
    const b = new CommitBatcher<number>({
      name: 'test',
      parallel: 3,
      commit: async (items) => {
        groups++;
        await new Promise((r) => setImmediate(r));
        return items.map(() => undefined);
      },
    });
    // Items arriving on every turn of the event loop, while writers start and finish around them.
    const all: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      all.push(b.submit(i));
      if (i % 3 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    await b.drain();
    assert.equal(b.stats.requests, 200);
    assert.ok(groups < 200, `items were grouped (${groups} groups)`);
  });

  it('with parallelFrom, small items wait for one writer and a heavy queue gets a second one', async () => {
    const g = gated();
    const b = new CommitBatcher<string>({ name: 'test', parallel: 2, parallelFrom: 100, maxWeight: 2000, weight: (x) => (x.startsWith('big') ? 500 : 1), commit: g.commit });
    const a = b.submit('a');
    await g.turn();
    const small = ['s1', 's2'].map((x) => b.submit(x));
    await g.turn();
    assert.deepEqual(g.started, [['a']], 'two small items (weight 2) wait for the first writer');
    const big = b.submit('big1');
    await g.turn();
    assert.deepEqual(g.started, [['a'], ['s1', 's2', 'big1']], 'with 502 waiting a second writer takes them');
    g.gates[0]();
    g.gates[1]();
    await Promise.all([a, ...small, big]);
    await b.drain();
  });

  it('with parallelFrom, extra writers stop when little waits and no item is left unwritten', async () => {
    let inFlight = 0;
    let most = 0;
    const b = new CommitBatcher<number>({
      name: 'test',
      parallel: 3,
      parallelFrom: 50,
      weight: (n) => n,
      maxWeight: 100,
      commit: async (items) => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return items.map(() => undefined);
      },
    });
    const all: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      // Heavy items first (writers side by side), then light ones (one writer is enough).
      all.push(b.submit(i < 100 ? 60 : 1));
      if (i % 4 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    await b.drain();
    assert.equal(b.stats.requests, 300);
    assert.ok(most > 1, `heavy items were written side by side (at most ${most} at once)`);
  });
});
