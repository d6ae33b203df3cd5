// tier: slow
// The README in the order written: Quick start's service (package.json's start script) runs and stops, then
// "First send, in five commands" runs as written (after the first, `npm ci && npm run build`) against the
// built dist/ and the database Quick start created: in a fresh folder (like a clone's, dist/ linked in), the
// commands are taken from the README itself, so the test fails when the README's commands stop being true. Only the listener ports
// differ (the machine is shared): HTTP on a free port, substituted for 8080 in the curl command, and the
// other listeners off or on free ports. On the PostgreSQL pass the database URL points at a test schema;
// on SQLite the README's default ./data/mailroom.db is used.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { databaseUrlFor } from './helpers/process.js';
import { waitFor } from './helpers/wait.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The commands of the README's first-send block: one per line (a trailing backslash continues a line). */
function firstSendCommands(readme: string): string[] {
  const section = readme.slice(readme.indexOf('## First send, in five commands'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the README has a "First send" shell block');
  return block[1]
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

describe('README: Quick start, then first send in five commands', () => {
  let work: string;
  let tdb: TestDatabase | null = null;
  let serve: ChildProcess | null = null;
  let out = '';
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NODE_NO_WARNINGS: '1',
    MAILROOM_PORT: '0',
    MAILROOM_INBOUND_SMTP_PORT: '0',
    MAILROOM_SUBMISSION_PORT: 'off',
  };

  before(async () => {
    // The first command builds dist/; a missing or stale build is made here, as that command would.
    if (!existsSync(join(ROOT, 'dist/cli.js')) || newest(join(ROOT, 'src')) > statSync(join(ROOT, 'dist/cli.js')).mtimeMs) {
      const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(b.status, 0, b.stderr);
    }
    work = mkdtempSync(join(tmpdir(), 'mailroom-first-send-'));
    symlinkSync(join(ROOT, 'dist'), join(work, 'dist'));
    if (TEST_DIALECT === 'postgres') {
      tdb = await createTestDatabase();
      env.MAILROOM_DATABASE_URL = databaseUrlFor(tdb);
    }
  });

  after(async () => {
    if (serve?.pid && serve.exitCode === null) process.kill(-serve.pid, 'SIGKILL');
    await tdb?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('Quick start then First send: sender add, a token, a curl send, and the message is delivered to the local capture', async () => {
    const commands = firstSendCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    assert.equal(commands.length, 5, commands.join('\n'));
    assert.equal(commands[0], 'npm ci && npm run build');
    assert.match(commands[1], / &$/, 'the service runs in the background');

    // Quick start: `npm start` runs package.json's start script (the build before it is made above); it sets
    // the database up with its own random tokens and is stopped before First send, as the README says.
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const quick = spawn('bash', ['-c', start], { cwd: work, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let quickOut = '';
    quick.stdout!.on('data', (d: Buffer) => (quickOut += d.toString()));
    quick.stderr!.on('data', (d: Buffer) => (quickOut += d.toString()));
    await waitFor(() => quickOut.includes('mailroom worker started'), { timeoutMs: 60_000, intervalMs: 50, what: `Quick start's service\n${quickOut}` });
    assert.match(quickOut, /Server token {2}\(X-Service-Server-Token\): {2}\S+/);
    assert.match(quickOut, /node dist\/cli\.js user add you@example\.com --role admin/, 'the banner prints a command that runs here');
    process.kill(-quick.pid!, 'SIGTERM');
    assert.equal(await new Promise<number | null>((r) => (quick.exitCode !== null ? r(quick.exitCode) : quick.once('exit', (c) => r(c)))), 0, quickOut);

    // 2: the service, in its own process group (the shell and node), stopped with SIGTERM at the end.
    serve = spawn('bash', ['-c', commands[1].replace(/ &$/, '')], { cwd: work, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    serve.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    serve.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const listening = await waitFor(() => /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(out), { timeoutMs: 60_000, intervalMs: 50, what: `mailroom listening\n${out}` });
    const port = Number(listening[1]);
    await waitFor(() => out.includes('mailroom worker started'), { timeoutMs: 60_000, intervalMs: 50, what: `the worker\n${out}` });
    assert.match(out, /delivering every message to the local capture/);
    assert.doesNotMatch(out, /first start, created account/, "Quick start's database is used");

    // 3: the sender, confirmed by the operator.
    const added = spawnSync('bash', ['-c', commands[2]], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(added.status, 0, added.stderr + added.stdout);

    // 4 and 5: a new server token into a shell variable, then the send with it, to this service's port.
    assert.match(commands[3], /^TOKEN=\$\(node dist\/cli\.js token server\)$/);
    assert.match(commands[4], /localhost:8080\/email/);
    const script = `${commands[3]}\necho "$TOKEN"\n${commands[4].replace('localhost:8080', `localhost:${port}`)}`;
    const sent = spawnSync('bash', ['-c', script], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(sent.status, 0, sent.stderr);
    const [token, reply] = sent.stdout.split('\n', 2) as [string, string];
    const answer = JSON.parse(reply) as { ErrorCode: number; MessageID: string };
    assert.equal(answer.ErrorCode, 0, sent.stdout);

    // Seen: the capture's .eml file, the service's line naming it, and the Delivered event.
    const capture = join(work, 'capture');
    const file = await waitFor(() => (existsSync(capture) ? readdirSync(capture).find((f) => f.endsWith('.eml')) : undefined), {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: `a captured message\n${out}`,
    });
    const eml = readFileSync(join(capture, file), 'utf8');
    assert.match(eml, /^Subject: Hello$/m);
    assert.match(eml, /^To: friend@example\.net$/m);
    assert.match(eml, /It works\./);
    assert.equal(statSync(join(capture, file)).mode & 0o077, 0, 'captured mail is private to the service user');
    await waitFor(() => out.includes('"msg":"captured message"') && out.includes(file), { timeoutMs: 10_000, what: 'the captured line' });
    const details = await waitFor(
      async () => {
        const r = await fetch(`http://127.0.0.1:${port}/messages/outbound/${answer.MessageID}/details`, { headers: { 'x-service-server-token': token, accept: 'application/json' } });
        const j = (await r.json()) as { Status: string; MessageEvents: Array<{ Type: string; Details: Record<string, string> }> };
        return j.MessageEvents?.some((e) => e.Type === 'Delivered') ? j : null;
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'the Delivered event' },
    );
    const delivered = details.MessageEvents.find((e) => e.Type === 'Delivered')!;
    assert.match(JSON.stringify(delivered.Details), /captured as/);
    if (TEST_DIALECT === 'sqlite') assert.ok(existsSync(join(work, 'data/mailroom.db')), "the README's default database file");

    process.kill(-serve.pid!, 'SIGTERM');
    const code = await new Promise<number | null>((r) => (serve!.exitCode !== null ? r(serve!.exitCode) : serve!.once('exit', (c) => r(c))));
    assert.equal(code, 0, out);
  });
});
