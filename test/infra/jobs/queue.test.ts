import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backoffDelay } from '../../../src/infra/jobs/backoff.js';
import { claimJobs } from '../../../src/infra/jobs/claim.js';
import { completeJob } from '../../../src/infra/jobs/complete.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { JobRunner } from '../../../src/infra/jobs/runner.js';
import { createLogger } from '../../../src/infra/logger.js';
import { startService, type TestService } from '../../helpers/service.js';

describe('durable job queue', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('claims due jobs once, re-claims after an expired lease', async () => {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, [{ queue: 'q1', payload: { n: 1 }, runAt: now }, { queue: 'q1', payload: { n: 2 }, runAt: now + 60_000 }], now);
    const a = await claimJobs(s.ctx.database, { queues: ['q1'], workerId: 'w1', limit: 10, leaseMs: 1000, now });
    assert.equal(a.length, 1);
    assert.deepEqual(JSON.parse(a[0].payload), { n: 1 });
    assert.equal(a[0].attempts, 1);
    // Another worker sees nothing while the lease holds...
    assert.equal((await claimJobs(s.ctx.database, { queues: ['q1'], workerId: 'w2', limit: 10, leaseMs: 1000, now: now + 500 })).length, 0);
    // ...and gets it back once the first worker's lease has run out (it died).
    const b = await claimJobs(s.ctx.database, { queues: ['q1'], workerId: 'w2', limit: 10, leaseMs: 1000, now: now + 1001 });
    assert.equal(b.length, 1);
    assert.equal(b[0].id, a[0].id);
    assert.equal(b[0].attempts, 2);
    await completeJob(s.ctx.db, b[0].id);
    // The future job comes due later.
    const c = await claimJobs(s.ctx.database, { queues: ['q1'], workerId: 'w2', limit: 10, leaseMs: 1000, now: now + 60_000 });
    assert.equal(c.length, 1);
    await completeJob(s.ctx.db, c[0].id);
  });

  it('concurrent claimers never take the same job', async () => {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, Array.from({ length: 200 }, (_, i) => ({ queue: 'q2', payload: { i }, runAt: now })), now);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, w) => claimJobs(s.ctx.database, { queues: ['q2'], workerId: `w${w}`, limit: 40, leaseMs: 60_000, now })),
    );
    const ids = claims.flat().map((j) => j.id);
    assert.equal(ids.length, 200);
    assert.equal(new Set(ids).size, 200);
  });

  it('the runner retries a failing job on its backoff schedule', async () => {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, [{ queue: 'flaky', payload: {}, runAt: now }], now);
    const runner = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent') });
    let calls = 0;
    runner.register({
      queue: 'flaky',
      schedule: [30_000],
      async handle(job) {
        calls++;
        if (calls === 1) throw new Error('temporary');
        await completeJob(s.ctx.db, job.id);
      },
    });
    assert.equal(await runner.runUntilIdle(), 1);
    assert.equal(calls, 1);
    assert.equal(await runner.runUntilIdle(), 0, 'not due before the backoff');
    s.clock.advance(30_001);
    assert.equal(await runner.runUntilIdle(), 1);
    assert.equal(calls, 2);
    const left = await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'flaky').execute();
    assert.equal(left.length, 0);
  });

  it('backoff comes from the stored attempt count', () => {
    const sched = [1, 5, 10];
    assert.deepEqual([1, 2, 3, 4, 9].map((a) => backoffDelay(a, sched)), [1, 5, 10, 10, 10]);
  });
});
