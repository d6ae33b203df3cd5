// tier: unit
// The spool of a message arriving over SMTP: memory up to a threshold, a private temporary file beyond it; and
// the byte budget that bounds how many bytes are parsed at once.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import { ByteBudget } from '../../src/infra/byte-budget.js';
import { SpoolDir } from '../../src/infra/spool.js';

const chunks = (n: number, size: number) => Readable.from(Array.from({ length: n }, (_, i) => Buffer.alloc(size, i % 256)));

describe('message spool', () => {
  it('keeps a small message in memory and spills a large one to a file it deletes', async () => {
    const dir = await SpoolDir.create('mailroom-spool-test');
    try {
      const small = dir.spool(1 << 20, 64 * 1024);
      await pipeline(chunks(4, 1000), small);
      assert.equal(small.spilled, false);
      assert.equal((await small.read()).length, 4000);
      assert.equal(readdirSync(dir.path).length, 0);

      const large = dir.spool(1 << 20, 64 * 1024);
      await pipeline(chunks(100, 8192), large);
      assert.equal(large.spilled, true);
      assert.equal(readdirSync(dir.path).length, 1);
      const back = await large.read();
      assert.equal(back.length, 819_200);
      assert.equal(back[8192 * 37], 37);
      await large.discard();
      assert.equal(readdirSync(dir.path).length, 0);
    } finally {
      await dir.remove();
    }
    assert.equal(existsSync(dir.path), false);
  });

  it('counts but drops the bytes past the limit', async () => {
    const dir = await SpoolDir.create('mailroom-spool-test');
    try {
      const s = dir.spool(100_000, 10_000);
      await pipeline(chunks(50, 4096), s);
      assert.equal(s.bytes, 204_800);
      assert.equal(s.oversized, true);
      assert.ok((await s.read()).length <= 100_000);
      await s.discard();
    } finally {
      await dir.remove();
    }
  });
});

describe('byte budget', () => {
  it('runs work whose bytes fit together, makes the rest wait its turn, and a piece over the total runs alone', async () => {
    const budget = new ByteBudget(100);
    const running = new Map<string, () => void>();
    const seen: string[] = [];
    const job = (name: string, bytes: number) =>
      budget.run(bytes, async () => {
        seen.push(`${name} with ${[...running.keys()].join('+') || 'nothing'}`);
        await new Promise<void>((r) => running.set(name, r));
        running.delete(name);
      });
    const tick = () => new Promise((r) => setImmediate(r));
    const all = Promise.all([job('a', 60), job('b', 40), job('c', 30), job('huge', 500), job('d', 1)]);
    await tick();
    assert.deepEqual([...running.keys()], ['a', 'b']);
    running.get('a')!();
    await tick();
    assert.deepEqual([...running.keys()], ['b', 'c']);
    running.get('b')!();
    running.get('c')!();
    await tick();
    assert.deepEqual([...running.keys()], ['huge'], 'first come first served: d waits behind huge');
    running.get('huge')!();
    await tick();
    running.get('d')!();
    await all;
    assert.deepEqual(seen, ['a with nothing', 'b with a', 'c with b', 'huge with nothing', 'd with nothing']);
  });
});
