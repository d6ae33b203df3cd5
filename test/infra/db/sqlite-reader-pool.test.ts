// The SQLite reader threads (infra/db/sqlite-reader-pool.ts) under the read time limit: a read-limited read
// runs off the event loop (the loop keeps turning while it runs), stops at its limit with the thread kept,
// stops at once when its request goes away (the thread replaced), sees what the main connection committed,
// refuses writes, and a full pool refuses at once with ServiceBusy. An in-memory database keeps its reads on
// its one connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import type { Database } from '../../../src/infra/db/schema.js';
import { DEADLINE_FUNCTION, ReadAborted, TimeLimitExceeded } from '../../../src/infra/db/time-limit.js';
import { ReadersBusy, SqliteReaderPool } from '../../../src/infra/db/sqlite-reader-pool.js';
import { limitedRead } from '../../../src/domain/read-limit.js';
import { ApiError } from '../../../src/domain/errors.js';
import type { AppContext } from '../../../src/domain/app-context.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../helpers/database.js';

// Runs until stopped: the deadline check is called on every row of the recursive step.
const endless = (db: Kysely<Database>) =>
  db
    .withRecursive('c(i)', (qb) => qb.selectNoFrom(sql<number>`1`.as('i')).unionAll((u) => u.selectFrom('c').select(sql<number>`i + 1`.as('i')).where(sql.ref('i'), '<', 1_000_000_000)))
    .selectFrom('c')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .execute();

/** Turns of the event loop (setImmediate) while `p` runs: zero when a statement holds the loop throughout. */
async function turnsWhile<T>(p: Promise<T>): Promise<{ turns: number; result: T | Error }> {
  let turns = 0;
  let done = false;
  const settled = p.then(
    (v) => v,
    (e: Error) => e,
  );
  void settled.then(() => (done = true));
  while (!done) {
    await new Promise((r) => setImmediate(r));
    turns++;
  }
  return { turns, result: await settled };
}

describe('SQLite reader threads', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, () => {
  let t: TestDatabase;
  let d: Db;

  before(async () => {
    t = await createTestDatabase({ migrated: true });
    d = openDatabase(t.url, t.options);
  });
  after(async () => {
    await d.close();
    await t.drop();
  });

  const limited = <T>(limitMs: number, run: (db: Kysely<Database>) => Promise<T>, signal?: AbortSignal) =>
    d.sql.timeLimited(d.db, { limitMs, signal, readers: d.readers }, run);

  it('a database in a file has reader threads; an in-memory one has none', async () => {
    assert.ok(d.readers);
    const mem = openDatabase(':memory:');
    try {
      assert.equal(mem.readers, undefined);
    } finally {
      await mem.close();
    }
  });

  it('runs a read off the event loop and stops it at its limit, keeping the thread', async () => {
    const replaced = d.readers!.replaced;
    const { turns, result } = await turnsWhile(limited(400, endless));
    assert.ok(result instanceof TimeLimitExceeded && result.limitMs === 400, String(result));
    // The statement ran for its whole limit while the loop went on turning (on the main connection: none).
    assert.ok(turns >= 20, `${turns} turns of the event loop`);
    assert.equal(d.readers!.replaced, replaced, 'the deadline check stopped the statement; its thread stays');
    const r = await limited(5_000, (db) => sql<{ n: number }>`select 2 as n`.execute(db));
    assert.equal(r.rows[0]!.n, 2);
  });

  it('the main connection, by contrast, holds the loop for the whole read', async () => {
    const { turns, result } = await turnsWhile(d.sql.timeLimited(d.db, { limitMs: 200 }, endless));
    assert.ok(result instanceof TimeLimitExceeded);
    assert.ok(turns <= 2, `${turns} turns`);
  });

  it('stops the statement when its request goes away: the thread is replaced and the next read answers', async () => {
    const c = new AbortController();
    const replaced = d.readers!.replaced;
    const running = limited(60_000, endless, c.signal).then(
      () => 'finished',
      (e: unknown) => e,
    );
    while (d.readers!.running === 0) await new Promise((r) => setImmediate(r));
    c.abort();
    assert.ok((await running) instanceof ReadAborted);
    assert.equal(d.readers!.replaced, replaced + 1);
    const r = await limited(5_000, (db) => db.selectFrom('servers').select('id').execute());
    assert.ok(Array.isArray(r));
  });

  it('sees what the main connection committed, and gives BLOBs as Buffers', async () => {
    const before = await limited(5_000, (db) => db.selectFrom('servers').select('id').execute());
    await sql`create table if not exists reader_probe (k integer primary key, b blob)`.execute(d.db);
    await sql`insert into reader_probe (b) values (x'00ff10')`.execute(d.db);
    const rows = await limited(5_000, (db) => sql<{ b: Buffer }>`select b from reader_probe`.execute(db));
    assert.ok(Buffer.isBuffer(rows.rows[0]!.b));
    assert.deepEqual([...rows.rows[0]!.b], [0, 255, 16]);
    assert.ok(Array.isArray(before));
  });

  it('refuses a write and a transaction: the threads only read', async () => {
    await assert.rejects(limited(5_000, (db) => sql`insert into reader_probe (b) values (null)`.execute(db)));
    await assert.rejects(limited(5_000, (db) => db.transaction().execute((trx) => trx.selectFrom('servers').select('id').execute())));
    const n = await sql<{ n: number }>`select count(*) as n from reader_probe`.execute(d.db);
    assert.equal(Number(n.rows[0]!.n), 1);
  });

  it('a full pool refuses at once; limitedRead answers that as ServiceBusy (503)', async () => {
    const pool = new SqliteReaderPool(t.url, { threads: 1, maxQueue: 1, deadlineFunction: DEADLINE_FUNCTION });
    try {
      const ctx = { db: d.db, database: { ...d, readers: pool, readLimitMs: 1_500 } } as unknown as AppContext;
      const running = limitedRead(ctx, undefined, (c) => endless(c.db)).catch((e: unknown) => e);
      const waiting = limitedRead(ctx, undefined, (c) => c.db.selectFrom('servers').select('id').execute()).catch((e: unknown) => e);
      while (pool.running + pool.waiting < 2) await new Promise((r) => setImmediate(r));
      assert.deepEqual([pool.running, pool.waiting], [1, 1]);
      const refused = await limitedRead(ctx, undefined, (c) => c.db.selectFrom('servers').select('id').execute()).catch((e: unknown) => e);
      assert.ok(refused instanceof ApiError && refused.name === 'ServiceBusy', String(refused));
      await assert.rejects(pool.query('select 1', [], { deadline: Date.now() + 1000 }), ReadersBusy);
      const r = await running;
      assert.ok(r instanceof ApiError && /time limit of 1500 ms/.test(r.message), String(r));
      assert.ok(Array.isArray(await waiting));
    } finally {
      await pool.close();
    }
  });
});
