// compose.yaml's `testinbox` profile, run as its container would run it (containers cannot run on the build
// machine): its entrypoint script (deploy/testinbox.sh), with the source CLI for `node dist/cli.js`, its
// environment as compose interpolates it (defaults taken, the secret given), on a fresh SQLite file, the
// ports moved to free loopback ones. Mail sent over SMTP without credentials shows in Mailpit's API with the
// token the first start printed; a second start (a container restart) keeps the server and its token.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { waitFor } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function testinboxService(): { entrypoint: string[]; env: Record<string, string> } {
  const text = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
  const start = text.indexOf('\n  testinbox:\n');
  assert.ok(start >= 0, 'compose.yaml declares the testinbox service');
  const block = text.slice(start, text.indexOf('\nvolumes:', start));
  assert.match(block, /profiles: \["testinbox"\]/);
  assert.match(block, /"8025:8025"/);
  assert.match(block, /"1025:1025"/);
  assert.match(block, /- \.\/deploy\/testinbox\.sh:\/testinbox\.sh:ro/);
  const entrypoint = JSON.parse(/entrypoint: (\[.*\])/.exec(block)![1]!) as string[];
  const env: Record<string, string> = {};
  const lines = block.slice(block.indexOf('    environment:\n')).split('\n').slice(1);
  for (const line of lines) {
    const m = /^ {6}([A-Z_]+): (.*)$/.exec(line);
    if (!m) {
      if (/^ {6}#/.test(line)) continue;
      break;
    }
    const value = m[2]!.replace(/^"(.*)"$/, '$1').replace(/\$\{([A-Z_]+):([-?])([^}]*)\}/g, (_all, _name, op: string, def: string) => (op === '-' ? def : 'test-secret-key-test-secret-key-0123456789'));
    env[m[1]!] = value;
  }
  return { entrypoint, env };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('compose profile testinbox', () => {
  const dir = mkdtempSync(join(tmpdir(), 'testinbox-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (service: ReturnType<typeof testinboxService>, ports: { http: number; smtp: number }) => {
    assert.deepEqual(service.entrypoint, ['sh', '/testinbox.sh']);
    const child = spawn('sh', [join(ROOT, 'deploy/testinbox.sh')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        TESTINBOX_CLI: `${process.execPath} --import tsx src/cli.ts`,
        ...service.env,
        MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'),
        MAILROOM_HOST: '127.0.0.1',
        MAILROOM_PORT: String(ports.http),
        MAILROOM_DEV_SMTP_HOST: '127.0.0.1',
        MAILROOM_DEV_SMTP_PORT: String(ports.smtp),
        MAILROOM_INBOUND_SMTP_PORT: '0',
        MAILROOM_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    // The first start listens twice: the short start that makes the account, then the inbox itself.
    const listening = () => out.split('mailroom listening').length - 1 >= (out.includes('first start, created account') ? 2 : 1);
    await waitFor(() => listening() || child.exitCode !== null, { timeoutMs: 180_000, what: 'the test inbox to listen' });
    assert.ok(listening(), out);
    return {
      out: () => out,
      stop: async () => {
        child.kill('SIGTERM');
        await waitFor(() => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 60_000, what: 'the test inbox to stop' });
      },
    };
  };

  it('takes SMTP without credentials into "Test inbox", read through Mailpit\'s API, and keeps it over a restart', async () => {
    const service = testinboxService();
    assert.equal(service.env.MAILROOM_DEV_SMTP_SERVER, 'Test inbox');
    assert.equal(service.env.MAILROOM_PORT, '8025');
    assert.equal(service.env.MAILROOM_DEV_SMTP_PORT, '1025');
    const ports = { http: await freePort(), smtp: await freePort() };
    const first = await run(service, ports);
    const token = /server "Test inbox" added \(ID \d+, Sandbox\)[^\n]*\n\s+(\S+)/.exec(first.out())?.[1];
    assert.ok(token, first.out());
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: ports.smtp, secure: false, ignoreTLS: true });
    await mailer.sendMail({ from: 'app@anything.example', to: 'jane@dest.example', subject: 'Hello from the app', text: 'Hi Jane' });
    mailer.close();
    const auth = { authorization: `Basic ${Buffer.from(`ci:${token}`).toString('base64')}` };
    const list = (await (await fetch(`http://127.0.0.1:${ports.http}/mailpit/api/v1/messages`, { headers: auth })).json()) as { total: number; messages: Array<{ Subject: string }> };
    assert.equal(list.total, 1);
    assert.equal(list.messages[0]!.Subject, 'Hello from the app');
    await first.stop();

    const second = await run(service, ports);
    try {
      assert.doesNotMatch(second.out(), /server "Test inbox" added/);
      const again = await fetch(`http://127.0.0.1:${ports.http}/mailpit/api/v1/messages`, { headers: auth });
      assert.equal(again.status, 200, 'the first start\'s token still opens the inbox');
      assert.equal(((await again.json()) as { total: number }).total, 1);
    } finally {
      await second.stop();
    }
  });
});
