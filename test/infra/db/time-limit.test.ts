// The read time limit (infra/db/time-limit.ts) on both databases: a statement past it stops with
// TimeLimitExceeded; on PostgreSQL a read whose request went away is cancelled and leaves pg_stat_activity,
// and a read that finished in time leaves the connection as it found it (no statement_timeout after it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/infra/db/schema.js';
import { ReadAborted, TimeLimitExceeded } from '../../../src/infra/db/time-limit.js';
import { startService, type TestService } from '../../helpers/service.js';
import { TEST_DIALECT } from '../../helpers/database.js';
import { waitFor } from '../../helpers/wait.js';

// A statement that runs until it is stopped: a recursive count to a billion, built as the domain builds its
// reads (SQLite calls the deadline check on every row of the recursive step's SELECT).
const endless = (db: Kysely<Database>) =>
  db
    .withRecursive('c(i)', (qb) => qb.selectNoFrom(sql<number>`1`.as('i')).unionAll((u) => u.selectFrom('c').select(sql<number>`i + 1`.as('i')).where(sql.ref('i'), '<', 1_000_000_000)))
    .selectFrom('c')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .execute();

describe('read time limit', () => {
  let s: TestService;

  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('stops a statement past its limit with TimeLimitExceeded naming the limit', async () => {
    const d = s.ctx.database;
    await assert.rejects(
      d.sql.timeLimited(s.ctx.db, { limitMs: 50 }, (db) => endless(db)),
      (err: unknown) => err instanceof TimeLimitExceeded && err.limitMs === 50,
    );
    // The connection is usable and unlimited afterwards.
    const r = await sql<{ n: number }>`select 1 as n`.execute(s.ctx.db);
    assert.equal(Number(r.rows[0]!.n), 1);
  });

  it('answers a read within its limit as it would without one', async () => {
    const r = await s.ctx.database.sql.timeLimited(s.ctx.db, { limitMs: 5_000 }, (db) => db.selectFrom('servers').select('id').execute());
    assert.ok(r.length >= 1);
  });

  it('does not start a read whose request already went away', async () => {
    const c = new AbortController();
    c.abort();
    await assert.rejects(
      s.ctx.database.sql.timeLimited(s.ctx.db, { limitMs: 5_000, signal: c.signal }, (db) => endless(db)),
      ReadAborted,
    );
  });

  it('cancels the statement when its request goes away: it leaves pg_stat_activity', { skip: TEST_DIALECT !== 'postgres' }, async () => {
    const c = new AbortController();
    const marker = `abort-probe-${process.pid}-${Date.now()}`;
    const running = s.ctx.database.sql.timeLimited(s.ctx.db, { limitMs: 60_000, signal: c.signal }, (db) =>
      sql`select pg_sleep(60), ${sql.lit(marker)}::text as marker`.execute(db),
    );
    const settled = running.then(
      () => 'finished',
      (err: unknown) => err,
    );
    const active = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from pg_stat_activity where state = 'active' and query like ${`%${marker}%`} and pid <> pg_backend_pid()`.execute(s.ctx.db)).rows[0]!.n,
      );
    await waitFor(async () => (await active()) === 1, { timeoutMs: 10_000, what: 'the statement to run' });
    c.abort();
    assert.ok((await settled) instanceof ReadAborted);
    await waitFor(async () => (await active()) === 0, { timeoutMs: 10_000, what: 'the statement to leave pg_stat_activity' });
  });
});
