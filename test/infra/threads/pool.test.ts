// tier: unit
// The parser threads' pool (src/infra/threads/pool.ts): a worker reads several messages at once while they wait
// for the main thread (DNS), within its task and byte bounds (a task's weight: its string or transferred bytes;
// of unknown size, it runs alone), and a worker that dies while it reads several
// blames none of them (shared), so the listener answers each a temporary 451 instead of a permanent 554.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ThreadPool, WorkerLost, taskModule } from '../../../src/infra/threads/pool.js';
import { waitFor } from '../../helpers/wait.js';

const TASK = taskModule(import.meta.url, 'fixture-task');

function heldPool(tasksPerWorker: number) {
  const held: Array<() => void> = [];
  const pool = new ThreadPool({ threads: 1, maxQueue: 1, tasksPerWorker, services: { hold: () => new Promise<unknown>((r) => held.push(() => r(null))) } });
  return { pool, held };
}

describe('parser thread pool', () => {
  // The pool's workers do not keep a process alive (a server does): this test's process is kept alive here.
  let keep: NodeJS.Timeout;
  before(() => (keep = setInterval(() => undefined, 1000)));
  after(() => clearInterval(keep));

  it('runs several waiting tasks on one worker at once, queues past its room, refuses past the queue', async () => {
    const { pool, held } = heldPool(3);
    try {
      const running = [1, 2, 3].map((i) => pool.run<string>(TASK, 'wait', `${i}`));
      await waitFor(() => held.length === 3, { what: 'three tasks waiting on the main thread at once' });
      assert.equal(pool.running, 3);
      const queued = pool.run<string>(TASK, 'wait', '4');
      assert.equal(pool.waiting, 1);
      await assert.rejects(pool.run(TASK, 'wait', '5'), /busy/);
      held.splice(0).forEach((release) => release());
      assert.deepEqual(await Promise.all(running), ['1', '2', '3']);
      await waitFor(() => held.length === 1, { what: 'the queued task to start' });
      held.splice(0).forEach((release) => release());
      assert.equal(await queued, '4');
    } finally {
      await pool.close();
    }
  });

  it('a task of a large message runs alone on its worker (bytes bound)', async () => {
    const { pool, held } = heldPool(16);
    try {
      const big = new ArrayBuffer(32 * 1024 * 1024);
      const first = pool.run<string>(TASK, 'wait', '1', [big]);
      await waitFor(() => held.length === 1, { what: 'the large task to start' });
      const second = pool.run<string>(TASK, 'wait', '2');
      assert.equal(pool.waiting, 1, 'the small task waits for the large one');
      held.splice(0).forEach((release) => release());
      await waitFor(() => held.length === 1, { what: 'the small task to start' });
      held.splice(0).forEach((release) => release());
      assert.deepEqual(await Promise.all([first, second]), ['1', '2']);
    } finally {
      await pool.close();
    }
  });

  it("a task run 'alone' (CSS inlining: it computes without waiting) takes a worker of its own, not a busy one's turn", async () => {
    const held: Array<() => void> = [];
    const pool = new ThreadPool({ threads: 2, maxQueue: 4, services: { hold: () => new Promise<unknown>((r) => held.push(() => r(null))) } });
    try {
      const first = pool.run<string>(TASK, 'wait', '1', [], { alone: true });
      await waitFor(() => held.length === 1, { what: 'the first task to start' });
      // The first worker has room for 15 more ordinary tasks; an alone one starts a second worker instead.
      const second = pool.run<string>(TASK, 'wait', '2', [], { alone: true });
      await waitFor(() => held.length === 2, { what: 'the second task to start beside the first' });
      assert.equal(pool.running, 2);
      // Both workers taken: an ordinary task waits too, rather than share the alone task's worker.
      const third = pool.run<string>(TASK, 'wait', '3');
      assert.equal(pool.waiting, 1);
      held.splice(0).forEach((release) => release());
      await waitFor(() => held.length === 1, { what: 'the waiting task to start' });
      held.splice(0).forEach((release) => release());
      assert.deepEqual(await Promise.all([first, second, third]), ['1', '2', '3']);
    } finally {
      await pool.close();
    }
  });

  it('a worker that dies while it runs several tasks fails each as shared; alone, as its own', async () => {
    const { pool, held } = heldPool(4);
    try {
      const waiting = [1, 2].map((i) => pool.run<string>(TASK, 'wait', `${i}`).catch((e: unknown) => e));
      await waitFor(() => held.length === 2, { what: 'two tasks running' });
      const crashed = await pool.run(TASK, 'crash', 'x').catch((e: unknown) => e);
      const others = await Promise.all(waiting);
      for (const e of [crashed, ...others]) {
        assert.ok(e instanceof WorkerLost, String(e));
        assert.equal(e.shared, true);
      }
      const alone = await pool.run(TASK, 'crash', 'x').catch((e: unknown) => e);
      assert.ok(alone instanceof WorkerLost);
      assert.equal(alone.shared, false);
      // A new worker takes the next task.
      const next = pool.run<string>(TASK, 'wait', '7');
      await waitFor(() => held.length === 3, { what: 'a task on the new worker' });
      held.splice(0).forEach((release) => release());
      assert.equal(await next, '7');
    } finally {
      await pool.close();
    }
  });
});
