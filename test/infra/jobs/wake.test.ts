// A wake-up that names queues claims for those only (one query instead of one per registered queue); a
// wake-up naming none, or the poll, claims for every queue, so a job of another queue is not left behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { completeJob } from '../../../src/infra/jobs/complete.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { JobRunner } from '../../../src/infra/jobs/runner.js';
import { createLogger } from '../../../src/infra/logger.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';

describe('runner wake-ups by queue', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  function runner(pollMs: number, ran: string[], database = s.ctx.database): JobRunner {
    const r = new JobRunner({ database, clock: s.clock, logger: createLogger('silent'), pollMs });
    // Registered first, so a round that claims for both queues starts this one's job first.
    for (const queue of ['wake-b', 'wake-a']) {
      r.register({
        queue,
        async handle(job) {
          ran.push(`${queue}:${(JSON.parse(job.payload) as { n: number }).n}`);
          await completeJob(s.ctx.db, job.id);
        },
      });
    }
    return r;
  }

  it('claims for the named queue only, and for every queue when none is named', async () => {
    const ran: string[] = [];
    const r = runner(3_600_000, ran); // no poll during the test
    r.start();
    try {
      const now = s.clock.now();
      await enqueueJobs(s.ctx.db, [{ queue: 'wake-a', payload: { n: 1 }, runAt: now }], now);
      r.wake('wake-a');
      await waitFor(() => ran.includes('wake-a:1'), { timeoutMs: 10_000, what: 'the first job' });
      // Settled: the runner idles. Now one job in each queue, and a wake-up that names one.
      await waitFor(async () => (await s.ctx.db.selectFrom('jobs').select('id').where('queue', 'like', 'wake-%').execute()).length === 0, { timeoutMs: 10_000 });
      await enqueueJobs(s.ctx.db, [{ queue: 'wake-b', payload: { n: 2 }, runAt: now }, { queue: 'wake-a', payload: { n: 3 }, runAt: now }], now);
      r.wake('wake-a');
      await waitFor(() => ran.includes('wake-a:3'), { timeoutMs: 10_000, what: "wake-a's job" });
      assert.ok(!ran.includes('wake-b:2'), 'a wake-up naming wake-a does not claim for wake-b');
      r.wake();
      await waitFor(() => ran.includes('wake-b:2'), { timeoutMs: 10_000, what: "wake-b's job after a wake-up naming no queue" });
    } finally {
      await r.stop();
    }
  });

  it('the poll claims for every queue', async () => {
    const ran: string[] = [];
    const r = runner(20, ran);
    r.start();
    try {
      const now = s.clock.now();
      await enqueueJobs(s.ctx.db, [{ queue: 'wake-b', payload: { n: 4 }, runAt: now }], now);
      r.wake('wake-a');
      await waitFor(() => ran.includes('wake-b:4'), { timeoutMs: 10_000, what: "wake-b's job by the poll" });
    } finally {
      await r.stop();
    }
  });

  it('a wake-up that comes while a round is claiming, and the round finds nothing, starts another round', async () => {
    // The database is the test's with a plugin that sees each claim's answer: when armed, an empty claim calls
    // wake() with no queue named, while the round is still under way (no idle wait to cut short then).
    const claims = new WeakSet<object>();
    let answered = 0;
    let armed = false;
    let r: JobRunner | null = null;
    const plugin: KyselyPlugin = {
      transformQuery({ node, queryId }) {
        if (node.kind === 'RawNode' && node.sqlFragments.join('').includes('update jobs set locked_by')) claims.add(queryId);
        return node;
      },
      async transformResult({ result, queryId }) {
        if (!claims.has(queryId)) return result;
        answered++;
        if (armed && result.rows.length === 0) {
          armed = false;
          r!.wake();
        }
        return result;
      },
    };
    const ran: string[] = [];
    r = runner(3_600_000, ran, { ...s.ctx.database, db: s.ctx.database.db.withPlugin(plugin) }); // no poll
    r.start();
    try {
      // The start's round claims for both queues and finds nothing; the runner then idles.
      await waitFor(() => answered >= 2, { timeoutMs: 10_000, what: "the start round's claims" });
      const now = s.clock.now();
      await enqueueJobs(s.ctx.db, [{ queue: 'wake-b', payload: { n: 5 }, runAt: now }], now);
      armed = true;
      r.wake('wake-a'); // a round for wake-a alone: it finds nothing, and during it comes a wake naming none
      await waitFor(() => ran.includes('wake-b:5'), { timeoutMs: 5_000, what: "wake-b's job after a wake-up during a round" });
    } finally {
      await r.stop();
    }
  });
});
