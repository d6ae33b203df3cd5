import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import { migrateToLatest } from '../../../src/infra/db/migrate.js';
import { Scheduler } from '../../../src/infra/jobs/scheduler.js';
import { createLogger } from '../../../src/infra/logger.js';
import { TestClock } from '../../helpers/clock.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

const EVERY = 10 * 60_000;

describe('periodic tasks across three workers on one database', () => {
  let tdb: TestDatabase;
  let dbs: Db[];
  const clock = new TestClock();
  before(async () => {
    tdb = await createTestDatabase();
    dbs = [1, 2, 3].map(() => openDatabase(tdb.url, tdb.options));
    await migrateToLatest(dbs[0]!);
    clock.freeze('2026-11-23T10:00:00Z');
  });
  after(async () => {
    for (const d of dbs) await d.close();
    await tdb.drop();
  });

  it('runs each task once per period, whichever worker wins, and again once the period has passed', async () => {
    const runs: Array<{ worker: number; task: string; at: number }> = [];
    const schedulers = dbs.map((d, i) => {
      const s = new Scheduler(d.db, clock, createLogger('silent'));
      for (const task of ['retention', 'stream-purge']) s.add({ name: task, everyMs: EVERY, run: async (now) => void runs.push({ worker: i, task, at: now }) });
      return s;
    });
    for (let period = 0; period < 4; period++) {
      // Every worker asks several times within the period, all at once.
      for (let ask = 0; ask < 3; ask++) await Promise.all(schedulers.map((s) => s.runDue()));
      clock.advance(EVERY / 2);
      await Promise.all(schedulers.map((s) => s.runDue()));
      assert.equal(runs.filter((r) => r.task === 'retention').length, period + 1, `retention runs after period ${period}`);
      assert.equal(runs.filter((r) => r.task === 'stream-purge').length, period + 1);
      clock.advance(EVERY / 2);
    }
  });
});
