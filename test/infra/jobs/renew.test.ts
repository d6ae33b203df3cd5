// Short leases renewed by a heartbeat (src/infra/jobs/renew.ts): a living worker keeps a slow job however
// long it takes, so no second worker runs it; a dead worker's job comes back one lease (30 s) later instead
// of ten minutes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimJobs } from '../../../src/infra/jobs/claim.js';
import { completeJob } from '../../../src/infra/jobs/complete.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { DEFAULT_LEASE_MS, JobRunner } from '../../../src/infra/jobs/runner.js';
import { createLogger } from '../../../src/infra/logger.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';

describe('lease heartbeat', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  async function slowJob(queue: string) {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, [{ queue, payload: {}, runAt: now }], now);
    const runner = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent'), pollMs: 10, heartbeatMs: 60_000 });
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    let runs = 0;
    // One job at a time: with room for more, this runner's own 10 ms poll could take its expired job back
    // before the other worker's claim below (seen once in CI on PostgreSQL).
    runner.register({
      queue,
      concurrency: 1,
      handle: async (job) => {
        runs++;
        await gate;
        await completeJob(s.ctx.db, job.id);
      },
    });
    runner.start();
    await waitFor(() => runs === 1, { what: 'the job to start' });
    const job = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', queue).executeTakeFirstOrThrow();
    return { runner, job, openGate, runs: () => runs };
  }

  it('a living worker renews its lease: no other worker claims the job, however long it runs', async () => {
    const { runner, job, openGate, runs } = await slowJob('renew-live');
    assert.equal(DEFAULT_LEASE_MS, 30_000);
    assert.ok(job.locked_until! - s.clock.now() <= 30_000);
    // Ten minutes of a slow job, the heartbeat renewing every 10 s of clock time.
    for (let t = 0; t < 60; t++) {
      s.clock.advance(10_000);
      await runner.heartbeat();
      const other = await claimJobs(s.ctx.database, { queues: ['renew-live'], workerId: 'other', limit: 10, leaseMs: 30_000, now: s.clock.now() });
      assert.equal(other.length, 0, `claimed by another worker after ${(t + 1) * 10} s`);
    }
    openGate();
    await runner.stop();
    assert.equal(runs(), 1);
    assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'renew-live').execute()).length, 0);
  });

  it("a dead worker's job returns within about 30 s of its last heartbeat", async () => {
    const { runner, openGate } = await slowJob('renew-dead');
    s.clock.freeze();
    try {
      await runner.heartbeat();
      // The worker dies (no more heartbeats). 29 s later the job is still its; 31 s later another worker has it.
      s.clock.advance(29_000);
      assert.equal((await claimJobs(s.ctx.database, { queues: ['renew-dead'], workerId: 'other', limit: 10, leaseMs: 30_000, now: s.clock.now() })).length, 0);
      s.clock.advance(2_000);
      const back = await claimJobs(s.ctx.database, { queues: ['renew-dead'], workerId: 'other', limit: 10, leaseMs: 30_000, now: s.clock.now() });
      assert.equal(back.length, 1);
    } finally {
      s.clock.unfreeze();
      openGate();
      await runner.stop();
    }
  });

  it('the heartbeat timer renews by itself and writes the worker row; stop() removes it', async () => {
    const now = s.clock.now();
    await enqueueJobs(s.ctx.db, [{ queue: 'renew-timer', payload: {}, runAt: now }], now);
    const runner = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent'), pollMs: 10, heartbeatMs: 50 });
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    runner.register({ queue: 'renew-timer', handle: async (job) => (await gate, completeJob(s.ctx.db, job.id)) });
    runner.start();
    const first = await waitFor(async () => (await s.ctx.db.selectFrom('jobs').select('locked_until').where('queue', '=', 'renew-timer').executeTakeFirst())?.locked_until);
    s.clock.advance(20_000);
    await waitFor(async () => ((await s.ctx.db.selectFrom('jobs').select('locked_until').where('queue', '=', 'renew-timer').executeTakeFirst())?.locked_until ?? 0) >= first + 20_000, {
      what: 'the lease to be renewed by the timer',
    });
    const row = await s.ctx.db.selectFrom('worker_heartbeats').selectAll().where('worker_id', '=', runner.workerId).executeTakeFirst();
    assert.equal(row?.pid, process.pid);
    openGate();
    await runner.stop();
    assert.equal((await s.ctx.db.selectFrom('worker_heartbeats').select('worker_id').where('worker_id', '=', runner.workerId).execute()).length, 0);
  });

  it('releaseClaimed hands a stopping worker\'s jobs back at once', async () => {
    const { runner, openGate } = await slowJob('renew-release');
    // As serve's drain deadline does it: the runner is stopping (claims nothing more) while its job runs on.
    // Released while it still claimed, the runner itself could take the job back before the other worker.
    const stopping = runner.stop();
    try {
      assert.equal(await runner.releaseClaimed(), 1);
      const back = await claimJobs(s.ctx.database, { queues: ['renew-release'], workerId: 'other', limit: 10, leaseMs: 30_000, now: s.clock.now() });
      assert.equal(back.length, 1);
    } finally {
      openGate();
      await stopping;
    }
  });
});
