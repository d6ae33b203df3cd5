// The runner's slot release (JobHandler.handle's `release`): a job that has done its work and only waits
// for its outcome to commit hands its group slot to the next job of its group, but keeps its queue slot and
// its lease until it settles: the runner never holds more unsettled jobs than the queue's concurrency (the
// bound on what a killed worker makes others redo), and stop() waits for them. Group caps hold for the jobs
// that have not released their slot.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { claimJobs } from '../../../src/infra/jobs/claim.js';
import { completeJob } from '../../../src/infra/jobs/complete.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { JobRunner } from '../../../src/infra/jobs/runner.js';
import { createLogger } from '../../../src/infra/logger.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';

describe('job runner slots', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('gives a released group slot to the next job of the group, holds no more unsettled jobs than its concurrency, and stop() waits for them', async () => {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, [0, 1, 2].map((n) => ({ queue: 'rel', payload: { n }, runAt: now + n, groupKey: 'one.example' })), now);
    const runner = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent'), pollMs: 10 });
    const gates = [0, 1, 2].map(() => {
      let open!: () => void;
      const p = new Promise<void>((r) => (open = r));
      return { p, open };
    });
    const started: number[] = [];
    const finished: number[] = [];
    runner.register({
      queue: 'rel',
      concurrency: 2,
      groupConcurrency: 1,
      async handle(job, release) {
        const { n } = JSON.parse(job.payload) as { n: number };
        started.push(n);
        release(); // "the SMTP work is done"
        await gates[n].p; // "waiting for the outcome's commit"
        await completeJob(s.ctx.db, job.id);
        finished.push(n);
      },
    });
    runner.start();
    const openAll = () => gates.forEach((g) => g.open());
    try {
      // Job 0 released its group slot: job 1, of the same group, starts while job 0 is unsettled.
      await waitFor(() => started.includes(1), { timeoutMs: 10_000, what: 'the second job of the group to start' });
      // Two unsettled jobs fill the queue's concurrency: job 2 waits, however long they take to commit. (An
      // absence can only be shown over time: twenty claim rounds, each woken at once, 10 ms apart.)
      for (let i = 0; i < 20; i++) {
        runner.wake();
        await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(started, [0, 1], 'no third job while two are unsettled');
      }
      // Both are still leased: nobody else can claim them.
      const leased = await s.ctx.db.selectFrom('jobs').select(['locked_by', 'locked_until']).where('queue', '=', 'rel').where('locked_by', '=', runner.workerId).execute();
      assert.equal(leased.length, 2);
      assert.ok(leased.every((j) => j.locked_until! > s.clock.now()));
      gates[0].open();
      await waitFor(() => started.includes(2), { timeoutMs: 10_000, what: 'the third job once the first settled' });
    } catch (err) {
      openAll(); // never leave the runner (and the test process) hanging on a gate
      await runner.stop();
      throw err;
    }
    const stopped = runner.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false, 'stop() waits for the unsettled jobs');
    openAll();
    await stopped;
    assert.deepEqual(finished.sort(), [0, 1, 2]);
  });

  it('never runs more than groupConcurrency jobs of one group at once', async () => {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, Array.from({ length: 12 }, (_, i) => ({ queue: 'grp', payload: { i }, runAt: now, groupKey: i < 9 ? 'slow.example' : `d${i}.example` })), now);
    const runner = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent'), pollMs: 10 });
    const inGroup = new Map<string, number>();
    let worst = 0;
    runner.register({
      queue: 'grp',
      concurrency: 8,
      groupConcurrency: 2,
      async handle(job) {
        const g = job.group_key!;
        inGroup.set(g, (inGroup.get(g) ?? 0) + 1);
        worst = Math.max(worst, inGroup.get('slow.example') ?? 0);
        await new Promise((r) => setTimeout(r, 5));
        inGroup.set(g, inGroup.get(g)! - 1);
        await completeJob(s.ctx.db, job.id);
      },
    });
    runner.start();
    await waitFor(async () => (await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'grp').execute()).length === 0, { timeoutMs: 20_000 });
    await runner.stop();
    assert.equal(worst, 2);
  });

  it('claims for many groups at once, each within the room it has left', async () => {
    const now = s.clock.now();
    const jobs = [...Array.from({ length: 10 }, () => 'a'), ...Array.from({ length: 10 }, () => 'b'), null, null];
    await enqueueJobs(s.ctx.db, jobs.map((g, i) => ({ queue: 'capped', payload: { i }, runAt: now + i, groupKey: g ?? undefined })), now);
    const got = await claimJobs(s.ctx.database, {
      queues: ['capped'],
      workerId: 'w',
      limit: 50,
      leaseMs: 60_000,
      now: now + 100,
      groupCap: { cap: 3, inflight: new Map([['a', 2]]) },
    });
    const count = (g: string | null) => got.filter((j) => j.group_key === g).length;
    assert.deepEqual([count('a'), count('b'), count(null)], [1, 3, 2]);
    // The oldest of each group were taken, with their attempt counted.
    assert.ok(got.every((j) => j.attempts === 1 && j.locked_by === 'w'));
    assert.deepEqual(got.filter((j) => j.group_key === 'b').map((j) => JSON.parse(j.payload).i).sort((x, y) => x - y), [10, 11, 12]);
    if (s.ctx.database.dialect === 'sqlite') {
      // The claim commits without an fsync, and puts synchronous back as it found it (FULL) afterwards.
      const r = await sql<{ synchronous: number }>`pragma synchronous`.execute(s.ctx.db);
      assert.equal(r.rows[0].synchronous, 2);
    }
  });
});
