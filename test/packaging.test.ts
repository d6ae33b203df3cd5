// tier: slow
// Containers cannot run on the build machine: the Dockerfile, compose.yaml and the systemd unit are checked
// as far as possible without one, and the image's start command is run outside a container with the image's
// own settings.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { unknownVariables } from '../src/config-unknown.js';
import { SETTING_NAMES } from '../src/settings.js';
import { runMailroom } from './helpers/process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const known = SETTING_NAMES;
/** Every MAILROOM_* name written in a text. */
const namesInSource = (text: string) => new Set(text.match(/MAILROOM_[A-Z0-9_]*[A-Z0-9]/g) ?? []);

/** Dockerfile instructions, continuation lines joined. */
function instructions(text: string): Array<[string, string]> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s+(.*)$/.exec(l)!;
      return [m[1].toUpperCase(), m[2]];
    });
}

function dockerEnv(ins: Array<[string, string]>): Record<string, string> {
  const env: Record<string, string> = {};
  let stage = 0;
  for (const [op, arg] of ins) {
    if (op === 'FROM') {
      stage++;
      for (const k of Object.keys(env)) delete env[k]; // only the final stage's ENV reaches the image
    }
    if (op === 'ENV' && stage > 0) for (const m of arg.matchAll(/(\w+)=(\S+)/g)) env[m[1]] = m[2];
  }
  return env;
}

describe('packaging', () => {
  const ins = instructions(read('Dockerfile'));

  it('the Dockerfile is multi-stage, runs as a non-root user with a data volume and a health check', () => {
    assert.ok(ins.filter(([op]) => op === 'FROM').length >= 2);
    const users = ins.filter(([op]) => op === 'USER').map(([, a]) => a);
    assert.ok(users.length > 0 && !['root', '0'].includes(users.at(-1)!));
    assert.ok(ins.some(([op, a]) => op === 'VOLUME' && a.includes('/data')));
    assert.ok(ins.some(([op, a]) => op === 'HEALTHCHECK' && a.includes('/readyz')));
    const env = dockerEnv(ins);
    assert.ok(env.MAILROOM_DATABASE_URL.startsWith('/data/'));
    // Every setting it sets exists and is valid.
    assert.deepEqual(unknownVariables(env, known), []);
    loadConfig(env);
  });

  it("the image's command with the image's settings starts mailroom, and its health check passes", async () => {
    const json = (op: string) => JSON.parse(ins.find(([o]) => o === op)![1]) as string[];
    const command = [...json('ENTRYPOINT'), ...json('CMD')];
    assert.deepEqual(command, ['node', 'dist/cli.js', 'serve']);
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-image-'));
    // Outside the image: the source instead of dist/, a temporary data folder instead of /data, and ports
    // chosen by the system (tests never use fixed ports). Everything else as the image sets it.
    const env = { ...dockerEnv(ins), MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'), MAILROOM_PORT: '0', MAILROOM_INBOUND_SMTP_PORT: '0', MAILROOM_SUBMISSION_PORT: '0' };
    const p = runMailroom(command.slice(2), env);
    try {
      const port = (await p.waitForLine(/"url":"http:\/\/0\.0\.0\.0:(\d+)"/, 60_000))[1];
      await p.waitForLine(/mailroom worker started/, 60_000);
      const health = ins.find(([op]) => op === 'HEALTHCHECK')![1];
      const check = JSON.parse(health.slice(health.indexOf('CMD') + 3).trim()) as string[];
      const r = spawnSync(check[0] === 'node' ? process.execPath : check[0], check.slice(1), { env: { MAILROOM_PORT: port }, timeout: 30_000 });
      assert.equal(r.status, 0, r.stderr?.toString());
      p.kill('SIGTERM');
      assert.equal(await p.exited, 0);
    } finally {
      p.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('compose.yaml runs PostgreSQL, an api and a worker with known settings only', () => {
    const text = read('compose.yaml');
    for (const s of ['postgres:', 'api:', 'worker:']) assert.ok(text.includes(`\n  ${s}`), s);
    assert.match(text, /command: \["serve", "--role", "api"\]/);
    assert.match(text, /command: \["serve", "--role", "worker"\]/);
    const names = Object.fromEntries([...namesInSource(text)].map((n) => [n, 'x']));
    assert.deepEqual(unknownVariables(names, known), []);
  });

  it('the systemd unit passes systemd-analyze verify and starts the same command', () => {
    const unit = read('deploy/mailroom.service');
    assert.match(unit, /^ExecStart=\/usr\/bin\/node \/opt\/mailroom\/dist\/cli\.js serve$/m);
    assert.match(unit, /^User=mailroom$/m);
    const names = Object.fromEntries([...namesInSource(unit)].map((n) => [n, 'x']));
    assert.deepEqual(unknownVariables(names, known), []);
    const r = spawnSync('systemd-analyze', ['verify', join(root, 'deploy/mailroom.service')], { timeout: 60_000 });
    if (r.error) return; // systemd-analyze absent: the checks above still hold
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });
});
