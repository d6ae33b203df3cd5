// Jobs stored already leased to this process's runner (enqueue-local.ts over JobRunner.reserve and
// enqueue-leased.ts): the runner runs them in the slot reserved for them, without a claim query, with what
// the caller handed over; a process that dies after the commit leaves the job to any runner once the lease
// runs out; reserved slots count against the concurrency.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { completeJob } from '../../../src/infra/jobs/complete.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { enqueueLeasedJobs } from '../../../src/infra/jobs/enqueue-leased.js';
import { enqueueLocal } from '../../../src/infra/jobs/enqueue-local.js';
import { JobRunner, type Slot } from '../../../src/infra/jobs/runner.js';
import type { Job } from '../../../src/infra/jobs/types.js';
import { createLogger } from '../../../src/infra/logger.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';

describe('jobs stored leased to the local runner', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  const LEASE_MS = 5_000;

  /** A runner whose handler records each job and holds it until `gate` opens; no poll during the test. */
  function runner(queue: string, concurrency: number, gate: Promise<void> = Promise.resolve(), groupConcurrency = concurrency) {
    const r = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent'), pollMs: 3_600_000 });
    const ran: Job[] = [];
    let running = 0;
    let most = 0;
    r.register({
      queue,
      concurrency,
      groupConcurrency,
      leaseMs: LEASE_MS,
      async handle(job) {
        ran.push(job);
        most = Math.max(most, ++running);
        try {
          await gate;
          await completeJob(s.ctx.db, job.id);
        } finally {
          running--;
        }
      },
    });
    return { r, ran, most: () => most };
  }

  /** A slot, once the started runner's first round found its queue empty. */
  const slotOf = (r: JobRunner, queue: string) => waitFor(() => r.reserve(queue, 'g'), { what: 'a free slot' });

  async function storeLeased(slot: Slot, queue: string, n: number): Promise<Job> {
    const now = s.clock.now();
    const [job] = await s.ctx.db.transaction().execute((trx) =>
      enqueueLeasedJobs(trx, [{ queue, payload: { n }, runAt: now, groupKey: 'g' }], now, { workerId: slot.workerId, until: now + slot.leaseMs }),
    );
    return job;
  }

  it('runs a job stored leased in its reserved slot, without a claim', async () => {
    const { r, ran } = runner('leased-run', 4);
    r.start();
    let slot: Slot | null = null;
    try {
      slot = await slotOf(r, 'leased-run');
      const job = await storeLeased(slot, 'leased-run', 1);
      // The row is what a claim leaves: leased to this runner, one attempt counted.
      const row = await s.ctx.db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      assert.equal(row.locked_by, r.workerId);
      assert.equal(row.locked_until, row.created_at + LEASE_MS);
      assert.equal(row.attempts, 1);
      const claims = r.stats.claims;
      slot.start(job);
      await waitFor(async () => !(await s.ctx.db.selectFrom('jobs').select('id').where('id', '=', job.id).executeTakeFirst()), { what: 'the job done' });
      assert.deepEqual(ran.map((j) => JSON.parse(j.payload)), [{ n: 1 }]);
      assert.equal(r.stats.handedOver, 1);
      // Neither the start nor the settling job made a claim: nothing else waits in the queue.
      assert.equal(r.stats.claims, claims);
      assert.equal(r.stats.claimed, 0);
      // An enqueue that names the queue is claimed as before.
      const now = s.clock.now();
      await enqueueJobs(s.ctx.db, [{ queue: 'leased-run', payload: { n: 2 }, runAt: now, groupKey: 'g' }], now);
      r.wake('leased-run');
      await waitFor(() => ran.length === 2, { what: 'the enqueued job' });
      assert.equal(r.stats.claimed, 1);
    } finally {
      slot?.cancel(); // no-op once started; a failed assertion must not leave stop() waiting for it
      await r.stop();
    }
  });

  it('counts reserved slots against the concurrency, and gives back a slot whose commit failed', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { r, ran, most } = runner('leased-cap', 2, gate);
    r.start();
    let a: Slot | null = null;
    let b: Slot | null = null;
    try {
      a = await slotOf(r, 'leased-cap');
      b = r.reserve('leased-cap', 'g');
      assert.ok(b, 'a second slot');
      assert.equal(r.reserve('leased-cap', 'g'), null, 'no third slot at concurrency 2');
      // A job waiting in the database is not claimed into reserved slots.
      const now = s.clock.now();
      await enqueueJobs(s.ctx.db, [{ queue: 'leased-cap', payload: { n: 0 }, runAt: now, groupKey: 'g' }], now);
      assert.equal(await r.runUntilIdle(), 0, 'no claim while both slots are reserved');
      // A commit that fails stores nothing: its slot goes back.
      await assert.rejects(
        s.ctx.db.transaction().execute(async (trx) => {
          await enqueueLeasedJobs(trx, [{ queue: 'leased-cap', payload: { n: 9 }, runAt: now, groupKey: 'g' }], now, { workerId: b!.workerId, until: now + b!.leaseMs });
          throw new Error('commit failed');
        }),
        /commit failed/,
      );
      b.cancel();
      a.start(await storeLeased(a, 'leased-cap', 1));
      // The freed slot goes to the job that waited (a refused reservation and the enqueue say one waits).
      r.wake('leased-cap');
      await waitFor(() => ran.length === 2, { what: 'the waiting job claimed into the freed slot' });
      assert.equal(r.reserve('leased-cap', 'g'), null, 'both slots busy again');
      open();
      await waitFor(async () => (await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'leased-cap').execute()).length === 0, { what: 'the jobs done' });
      assert.deepEqual(ran.map((j) => JSON.parse(j.payload).n).sort(), [0, 1]);
      assert.ok(most() <= 2, `at most 2 jobs ran at once (${most()})`);
    } finally {
      open();
      a?.cancel();
      b?.cancel();
      await r.stop();
    }
  });

  it('leaves the job of a process killed after the commit to another runner once the lease runs out', async () => {
    const dead = runner('leased-crash', 4);
    const other = runner('leased-crash', 4);
    dead.r.start();
    let slot: Slot | null = null;
    try {
      slot = await slotOf(dead.r, 'leased-crash');
      // Committed, never started: the process died between its commit and the hand-over.
      const job = await storeLeased(slot, 'leased-crash', 7);
      assert.equal(await other.r.runUntilIdle(), 0, 'not claimable while the lease holds');
      s.clock.advance(LEASE_MS + 1);
      assert.equal(await other.r.runUntilIdle(), 1, 'claimed once the lease has run out');
      assert.equal(other.ran[0].id, job.id);
      assert.equal(other.ran[0].attempts, 2);
      assert.equal(dead.ran.length, 0);
    } finally {
      slot?.cancel(); // the dead runner's bookkeeping, so that it can stop
      await dead.r.stop();
    }
  });

  it('stop() waits for a reserved slot, and runs the job it is given', async () => {
    const { r, ran } = runner('leased-stop', 4);
    r.start();
    const slot = await slotOf(r, 'leased-stop');
    const job = await storeLeased(slot, 'leased-stop', 3);
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    assert.equal(r.reserve('leased-stop', 'g'), null, 'no slot once stopping');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'stop() waits for the reserved slot');
    slot.start(job);
    await stopping;
    assert.equal(ran.length, 1);
    assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('id', '=', job.id).execute()).length, 0);
  });

  it('a job handed over while its group is full waits here for a group slot, as many as the group runs', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { r, ran, most } = runner('leased-wait', 8, gate, 1);
    r.start();
    const slots: Slot[] = [];
    try {
      slots.push(await slotOf(r, 'leased-wait'));
      const waiter = r.reserve('leased-wait', 'g');
      assert.ok(waiter, 'a second slot of the full group: the job will wait here');
      slots.push(waiter);
      assert.equal(r.reserve('leased-wait', 'g'), null, 'no more waiting than the group runs at once');
      for (const [i, slot] of slots.entries()) slot.start(await storeLeased(slot, 'leased-wait', i));
      await waitFor(() => ran.length === 1, { what: 'the first job' });
      assert.deepEqual(JSON.parse(ran[0].payload), { n: 0 });
      open();
      await waitFor(async () => (await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'leased-wait').execute()).length === 0, { what: 'both jobs done' });
      assert.deepEqual(ran.map((j) => JSON.parse(j.payload).n), [0, 1], 'the waiting job ran once the first settled');
      assert.equal(most(), 1, 'one job of the group at a time');
      assert.equal(r.stats.claimed, 0, 'neither job was claimed');
    } finally {
      open();
      for (const slot of slots) slot.cancel();
      await r.stop();
    }
  });

  describe('enqueueLocal', () => {
    /** A runner whose handler records each job with its handover. */
    function local(queue: string, concurrency: number) {
      const r = new JobRunner({ database: s.ctx.database, clock: s.clock, logger: createLogger('silent'), pollMs: 3_600_000 });
      const ran: Array<{ n: number; handover: { text: string } | undefined }> = [];
      r.register<{ text: string }>({
        queue,
        concurrency,
        leaseMs: LEASE_MS,
        async handle(job, _release, handover) {
          ran.push({ n: (JSON.parse(job.payload) as { n: number }).n, handover });
          await completeJob(s.ctx.db, job.id);
        },
      });
      return { r, ran };
    }
    const job = (queue: string, n: number) => ({ queue, payload: { n }, runAt: s.clock.now(), groupKey: 'g' });

    it('stores a job leased where the runner has a slot, and commit() runs it with the handover', async () => {
      const { r, ran } = local('local-run', 4);
      r.start();
      try {
        // The claim count rises when a round's query starts; reserve() hands out slots once it found nothing.
        await waitFor(() => r.isDrained('local-run'), { what: 'the first round, ended' });
        const claims = r.stats.claims;
        const [handle] = await s.ctx.db.transaction().execute((trx) => enqueueLocal<{ text: string }>(trx, r, [job('local-run', 1)], s.clock.now()));
        const row = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', 'local-run').executeTakeFirstOrThrow();
        assert.equal(row.locked_by, r.workerId, 'leased to the runner');
        handle.commit({ text: 'held in memory' });
        await waitFor(() => ran.length === 1, { what: 'the job handed over' });
        assert.deepEqual(ran, [{ n: 1, handover: { text: 'held in memory' } }]);
        assert.equal(r.stats.handedOver, 1);
        assert.equal(r.stats.claims, claims, 'no claim');
      } finally {
        await r.stop();
      }
    });

    it('abort() gives the slot back after a failed transaction, which stored nothing', async () => {
      const { r, ran } = local('local-abort', 1);
      r.start();
      try {
        await waitFor(() => r.isDrained('local-abort'), { what: 'the first round, ended' });
        let handles: Awaited<ReturnType<typeof enqueueLocal>> = [];
        await assert.rejects(
          s.ctx.db.transaction().execute(async (trx) => {
            handles = await enqueueLocal(trx, r, [job('local-abort', 1)], s.clock.now());
            throw new Error('commit failed');
          }),
          /commit failed/,
        );
        handles[0].abort();
        assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'local-abort').execute()).length, 0);
        // The runner's one slot is free again: the next job is stored leased to it.
        const [again] = await s.ctx.db.transaction().execute((trx) => enqueueLocal(trx, r, [job('local-abort', 2)], s.clock.now()));
        const row = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', 'local-abort').executeTakeFirstOrThrow();
        assert.equal(row.locked_by, r.workerId, 'stored leased in the slot given back');
        again.commit();
        await waitFor(() => ran.length === 1, { what: 'the job in the slot given back' });
        assert.equal(r.stats.handedOver, 1);
      } finally {
        await r.stop();
      }
    });

    it('enqueues a job normally where the runner has no slot, for a claim that hands nothing over', async () => {
      const { r, ran } = local('local-plain', 4);
      // Not started: no slot, so the job is stored unleased.
      const [handle] = await s.ctx.db.transaction().execute((trx) => enqueueLocal<{ text: string }>(trx, r, [job('local-plain', 3)], s.clock.now()));
      const row = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', 'local-plain').executeTakeFirstOrThrow();
      assert.equal(row.locked_by, null);
      r.start();
      try {
        await waitFor(() => ran.length === 1, { what: 'the job claimed' });
        handle.commit({ text: 'not used' });
        assert.deepEqual(ran, [{ n: 3, handover: undefined }], 'a claimed job has no handover');
        assert.equal(r.stats.claimed, 1);
      } finally {
        await r.stop();
      }
    });
  });
});
