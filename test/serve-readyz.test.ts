// `mailroom serve` on an empty database, as `npm start` runs it (the built dist/): it migrates, sets the
// account up and answers GET /readyz 200 with every check ok; in the perf tier on SQLite, within 1.5 s of the spawn
// (bench/README.md, "startup", has the figures and where the time goes).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { databaseUrlFor } from './helpers/process.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from './helpers/timing.js';
import { waitFor } from './helpers/wait.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

describe('serve on an empty database', LEFT_TO_PERF, () => {
  let dir: string;
  let tdb: TestDatabase | null = null;
  let child: ChildProcess | null = null;
  before(() => {
    if (!existsSync(join(ROOT, 'dist/cli.js')) || newest(join(ROOT, 'src')) > statSync(join(ROOT, 'dist/cli.js')).mtimeMs) {
      const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    dir = mkdtempSync(join(tmpdir(), 'mailroom-readyz-'));
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await tdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`answers /readyz 200 with every check ok${TIMED}`, LEFT_TO_PERF, async () => {
    // Made before the clock starts: the figure is serve's, not the test database's.
    if (TEST_DIALECT === 'postgres') tdb = await createTestDatabase();
    const url = tdb ? databaseUrlFor(tdb) : join(dir, 'mailroom.db');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, MAILROOM_DATABASE_URL: url, MAILROOM_PORT: '0', MAILROOM_INBOUND_SMTP_PORT: '0', MAILROOM_SUBMISSION_PORT: 'off' };
    const t0 = performance.now();
    child = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'serve'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const body = await waitFor(
      async () => {
        assert.equal(child!.exitCode, null, out);
        const port = /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(out)?.[1];
        if (!port) return null;
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
        return r?.status === 200 ? ((await r.json()) as { status: string; checks: Record<string, string> }) : null;
      },
      { timeoutMs: 60_000, intervalMs: 5, what: `/readyz 200\n${out}` },
    );
    const ms = performance.now() - t0;
    assert.equal(body.status, 'ok');
    assert.equal(body.checks.database, 'ok');
    assert.equal(body.checks.schema, 'ok');
    assert.match(out, /first start, created account and server "Default"/);
    // The bound is the embedded default's, the database a CI job starting a test inbox per run uses. On
    // PostgreSQL the first start's schema (its day partitions and trigram indexes) is server-side DDL that
    // takes longer; bench/README.md, "startup", has that figure beside this one.
    if (TEST_DIALECT === 'sqlite') assertWithin(ms, 1500, 'sqlite: spawn to the first 200 of /readyz');
    else console.log(`# ${TEST_DIALECT}: spawn to the first 200 of /readyz: ${Math.round(ms)} ms`);
  });
});
