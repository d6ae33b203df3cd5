// 200 only after the durable commit: the real CLI (`mailroom serve --role api`) takes POST /email from many
// concurrent clients and is killed with SIGKILL while the burst goes on. Every message answered 200 is in the database with its
// delivery job, and nothing answered is lost.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';
import { cliArgs } from '../../helpers/process.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SECRET = 'test-secret-key-test-secret-key-0123456789'; // the key startService() uses
const FROM = 'crash@example.com';
const CLIENTS = 24;

describe('the API process killed during a burst of POST /email', () => {
  let s: TestService;
  let child: ChildProcess | null = null;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    child?.kill('SIGKILL');
    await s.close();
  });

  it('loses no message it answered 200', async () => {
    const dbUrl = s.config.databaseUrl;
    child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', 'api'], {
      cwd: ROOT,
      env: { ...process.env, MAILROOM_DATABASE_URL: dbUrl, MAILROOM_SECRET_KEY: SECRET, MAILROOM_PORT: '0', MAILROOM_INBOUND_SMTP_PORT: '0', MAILROOM_SUBMISSION_PORT: '0', MAILROOM_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let log = '';
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    const url = await waitFor(
      () => {
        const line = log.split('\n').find((l) => l.includes('mailroom listening'));
        return line ? (JSON.parse(line) as { url: string }).url : null;
      },
      // tsx compiles the CLI first: slow on a loaded machine.
      { timeoutMs: 90_000, what: 'the child to listen for HTTP' },
    );

    const answered: string[] = [];
    let killed = false;
    const clients = Array.from({ length: CLIENTS }, async (_, i) => {
      for (let n = 0; !killed; n++) {
        let res: Response;
        try {
          res = await fetch(`${url}/email`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-server-token': s.serverToken },
            body: JSON.stringify({ From: FROM, To: `c${i}-${n}@dest.example`, Subject: `crash ${i}-${n}`, TextBody: 'x' }),
          });
        } catch {
          return; // the connection died with the process: that request was never answered
        }
        const body = (await res.json().catch(() => null)) as { MessageID?: string } | null;
        assert.equal(res.status, 200, JSON.stringify(body));
        answered.push(body!.MessageID!);
        // Killed mid-burst: every client has requests in flight, some of them in a group being written.
        if (!killed && answered.length >= CLIENTS * 3) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    });
    await Promise.all(clients);
    await new Promise((res) => (child!.exitCode !== null || child!.signalCode !== null ? res(null) : child!.once('exit', res)));
    child = null;
    assert.ok(answered.length >= CLIENTS * 3);

    const stored = await s.ctx.db.selectFrom('messages').select('id').where('id', 'in', answered).execute();
    assert.equal(stored.length, answered.length, 'every 200 is in the database');
    const jobs = await s.ctx.db.selectFrom('jobs').select('message_id').where('message_id', 'in', answered).execute();
    assert.equal(new Set(jobs.map((j) => j.message_id)).size, answered.length, 'every 200 has its delivery job');
  });
});
