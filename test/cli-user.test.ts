// `mailroom user ...` as an operator runs it: a real process, the password on standard input or generated
// and printed once, and the user able to sign in (or not) afterwards. (The command is the same on both
// databases; it runs against a SQLite file here, the sign-in rules are tested on both in test/http/console.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signIn } from '../src/domain/console-users/sessions.js';
import { addUser, ConsoleUserError } from '../src/domain/console-users/users.js';
import { openDatabase, type Db } from '../src/infra/db/database.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { cliArgs } from './helpers/process.js';

describe('mailroom user', () => {
  let dir: string;
  let url: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-cli-user-'));
    url = join(dir, 'mailroom.db');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (args: string[], stdin?: string) =>
    new Promise<{ code: number; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [...cliArgs(), 'user', ...args], {
        env: { ...process.env, MAILROOM_DATABASE_URL: url, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_SECRET_KEY: 'cli-test-secret-key-cli-test-secret-key-0123' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.stdin.end(stdin ?? '');
      child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
    });
  const withDb = async <T>(f: (db: Db) => Promise<T>) => {
    const db = openDatabase(url);
    try {
      return await f(db);
    } finally {
      await db.close();
    }
  };

  it('adds users with a password from standard input or a generated one, lists them, and removes them', async () => {
    // As after the first start (it creates the account). Each process costs seconds, so the refusals are
    // checked in-process below with the functions the command calls.
    await withDb(async (db) => {
      await migrateToLatest(db);
      await db.db.insertInto('accounts').values({ name: 'Default', created_at: Date.now() }).execute();
    });

    const piped = await cli(['add', 'Ops@Example.com', '--role', 'admin'], 'a long passphrase\n');
    assert.equal(piped.code, 0, piped.err);
    assert.doesNotMatch(piped.out, /passphrase/);
    const generated = await cli(['add', 'viewer@example.com', '--role', 'viewer']);
    assert.equal(generated.code, 0, generated.err);
    const password = /shown once\): (\S+)/.exec(generated.out)![1]!;
    assert.ok(password.length >= 20);
    await withDb(async (db) => {
      await assert.rejects(addUser(db.db, { email: 'x@example.com', role: 'boss', password: 'a long passphrase' }, 0), /admin or viewer/);
      await assert.rejects(addUser(db.db, { email: 'y@example.com', role: 'admin', password: 'short' }, 0), /at least 10/);
      await assert.rejects(addUser(db.db, { email: 'OPS@example.com', role: 'admin', password: 'a long passphrase' }, 0), /already/);
      await assert.rejects(addUser(db.db, { email: 'not an address', role: 'admin', password: 'a long passphrase' }, 0), ConsoleUserError);
    });

    const list = await cli(['list']);
    assert.match(list.out, /^ops@example\.com\tadmin\t/m);
    assert.match(list.out, /^viewer@example\.com\tviewer\t/m);

    await withDb(async (db) => {
      assert.equal((await signIn(db.db, 'ops@example.com', 'a long passphrase', Date.now())).kind, 'ok');
      assert.equal((await signIn(db.db, 'viewer@example.com', password, Date.now())).kind, 'ok');
    });
    assert.equal((await cli(['password', 'viewer@example.com'], 'another passphrase')).code, 0);
    assert.equal((await cli(['remove', 'ops@example.com'])).code, 0);
    await withDb(async (db) => {
      assert.equal((await signIn(db.db, 'ops@example.com', 'a long passphrase', Date.now())).kind, 'wrong');
      assert.equal((await signIn(db.db, 'viewer@example.com', 'another passphrase', Date.now())).kind, 'ok');
      assert.equal(await db.db.selectFrom('console_sessions').select('user_id').where('user_id', 'not in', db.db.selectFrom('console_users').select('id')).executeTakeFirst(), undefined);
    });
  });
});
