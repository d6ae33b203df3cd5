import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../helpers/database.js';
import { cliArgs } from '../../helpers/process.js';

interface Started {
  code: number | null;
  output: string;
}

/**
 * Starts `mailroom serve --role api` on its own port, waits until it listens (or exits), then stops it with
 * SIGTERM. Real processes: better-sqlite3 is synchronous, so two starts inside one process could not race.
 */
function startAndStop(env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', 'api'], {
      env: { ...process.env, MAILROOM_PORT: '0', MAILROOM_SUBMISSION_PORT: 'off', MAILROOM_LOG_LEVEL: 'info', ...env },
    });
    let output = '';
    const onData = (d: Buffer) => {
      output += d;
      if (output.includes('mailroom listening')) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('first start of several processes at once on an empty database', () => {
  let tdb: TestDatabase;
  let db: Db;
  let base: Record<string, string>;
  before(async () => {
    tdb = await createTestDatabase();
    db = openDatabase(tdb.url, tdb.options);
    base =
      TEST_DIALECT === 'postgres'
        ? {
            MAILROOM_DATABASE_URL: `${tdb.url}?options=${encodeURIComponent(`-c search_path=${tdb.options.schema}`)}`,
            // Processes on PostgreSQL share one key by setting (a key file per machine would differ).
            MAILROOM_SECRET_KEY: 'k'.repeat(40),
          }
        : { MAILROOM_DATABASE_URL: tdb.url };
  });
  after(async () => {
    await db.close();
    await tdb.drop();
  });

  async function counts() {
    const n = async (table: 'accounts' | 'servers' | 'api_tokens') =>
      Number((await db.db.selectFrom(table).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    return { accounts: await n('accounts'), servers: await n('servers'), tokens: await n('api_tokens') };
  }

  it('four processes: exactly one account, one "Default" server, tokens printed once, no process fails', async () => {
    const runs = await Promise.all([1, 2, 3, 4].map(() => startAndStop(base)));
    for (const r of runs) assert.equal(r.code, 0, r.output);
    assert.equal(runs.filter((r) => r.output.includes('first start, created account')).length, 1);
    assert.deepEqual(await counts(), { accounts: 1, servers: 1, tokens: 2 });
  });

  it('four more with the bootstrap token variables set: none dies on a duplicate token, nothing is added', async () => {
    const env = { ...base, MAILROOM_ACCOUNT_TOKEN: 'a'.repeat(24), MAILROOM_SERVER_TOKEN: 's'.repeat(24) };
    const runs = await Promise.all([1, 2, 3, 4].map(() => startAndStop(env)));
    for (const r of runs) assert.equal(r.code, 0, r.output);
    assert.deepEqual(await counts(), { accounts: 1, servers: 1, tokens: 2 });
  });
});

describe('first start with the bootstrap token variables on an empty database', () => {
  it('four processes at once: one account whose tokens are the configured ones', async () => {
    const tdb = await createTestDatabase();
    const db = openDatabase(tdb.url, tdb.options);
    try {
      const env: Record<string, string> =
        TEST_DIALECT === 'postgres'
          ? {
              MAILROOM_DATABASE_URL: `${tdb.url}?options=${encodeURIComponent(`-c search_path=${tdb.options.schema}`)}`,
              MAILROOM_SECRET_KEY: 'k'.repeat(40),
            }
          : { MAILROOM_DATABASE_URL: tdb.url };
      Object.assign(env, { MAILROOM_ACCOUNT_TOKEN: 'a'.repeat(24), MAILROOM_SERVER_TOKEN: 's'.repeat(24) });
      const runs = await Promise.all([1, 2, 3, 4].map(() => startAndStop(env)));
      for (const r of runs) assert.equal(r.code, 0, r.output);
      assert.equal(runs.filter((r) => r.output.includes('first start, created account')).length, 1);
      const servers = await db.db.selectFrom('servers').select('name').execute();
      assert.deepEqual(servers, [{ name: 'Default' }]);
      const res = await fetchServerWith(env, 's'.repeat(24));
      assert.equal(res, 'Default');
    } finally {
      await db.close();
      await tdb.drop();
    }
  });
});

/** Starts one more process and asks it GET /server with the configured server token. */
function fetchServerWith(env: Record<string, string>, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', 'api'], {
      env: { ...process.env, MAILROOM_PORT: '0', MAILROOM_SUBMISSION_PORT: 'off', MAILROOM_LOG_LEVEL: 'info', ...env },
    });
    let output = '';
    // The handler catches its own failures (reject).
    child.stdout.on('data', (d: Buffer) => void (async () => {
      output += d;
      const m = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (!m) return;
      child.stdout.removeAllListeners('data');
      try {
        const r = await fetch(`${m[1]}/server`, { headers: { 'X-Service-Server-Token': token } });
        resolve(((await r.json()) as { Name: string }).Name);
      } catch (err) {
        reject(err);
      } finally {
        child.kill('SIGTERM');
      }
    })());
    child.on('exit', () => reject(new Error(`exited before answering: ${output}`)));
  });
}
