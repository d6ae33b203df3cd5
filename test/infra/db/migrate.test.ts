import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import { migrateToLatest } from '../../../src/infra/db/migrate.js';
import { migrations } from '../../../src/infra/db/migrations/index.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../helpers/database.js';
import { cliArgs } from '../../helpers/process.js';

/** Runs `mailroom migrate` in its own process (better-sqlite3 is synchronous: two connections of one
 * process would wait on each other's lock with the event loop blocked). */
function migrateInProcess(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(), 'migrate'], {
      env: { ...process.env, MAILROOM_DATABASE_URL: url, MAILROOM_LOG_LEVEL: 'silent' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`migrate exited ${code}: ${out}`))));
  });
}

describe('migrations', () => {
  let tdb: TestDatabase;
  let a: Db;
  let b: Db;
  before(async () => {
    tdb = await createTestDatabase();
    a = openDatabase(tdb.url, tdb.options);
    b = openDatabase(tdb.url, tdb.options);
  });
  after(async () => {
    await a.close();
    await b.close();
    await tdb.drop();
  });

  it('two processes migrating one empty database at once run each migration exactly once', async () => {
    const url = TEST_DIALECT === 'postgres' ? `${tdb.url}?options=${encodeURIComponent(`-c search_path=${tdb.options.schema}`)}` : tdb.url;
    const outs = await Promise.all([migrateInProcess(url), migrateInProcess(url)]);
    const all = Object.keys(migrations).sort();
    // One of them ran everything; the other found nothing left to do.
    assert.deepEqual(outs.sort(), [`applied: ${all.join(', ')}`, 'schema is up to date']);
    const rows = await sql<{ name: string }>`select name from mailroom_migration order by name`.execute(a.db);
    assert.deepEqual(rows.rows.map((r) => r.name), all);
    // The schema is really there: a table from the first and one from the last migration answer queries.
    await a.db.selectFrom('servers').select('id').execute();
    await a.db.selectFrom('messages').select('id').limit(1).execute();
  });

  it('running again is a no-op', async () => {
    assert.deepEqual(await migrateToLatest(a), []);
  });

  it('refuses a database migrated by a newer mailroom, and changes nothing', async () => {
    await sql`insert into mailroom_migration (name, applied_at) values ('9999-from-the-future', 0)`.execute(a.db);
    await assert.rejects(migrateToLatest(b), /newer mailroom.*9999-from-the-future/);
    const n = await sql<{ n: number }>`select count(*) as n from mailroom_migration`.execute(a.db);
    assert.equal(Number(n.rows[0]!.n), Object.keys(migrations).length + 1);
  });
});
