// 250 only after the durable commit: the real CLI (`mailroom serve --role api`) takes submissions from many
// concurrent clients and is killed with SIGKILL the instant the first 250 arrives. Every message answered 250
// is in the database, and a worker started afterwards delivers each of them.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { waitFor } from '../helpers/wait.js';
import { FROM, startSubmissionRig, type SubmissionRig } from './helpers.js';
import { cliArgs } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'test-secret-key-test-secret-key-0123456789'; // the key startService() uses
const CLIENTS = 20;

describe('the API process killed right after a 250', () => {
  let r: SubmissionRig;
  let child: ChildProcess | null = null;
  before(async () => {
    r = await startSubmissionRig();
  });
  after(async () => {
    child?.kill('SIGKILL');
    await r.close();
  });

  it('loses no message it answered 250, and they are delivered after the restart', async () => {
    const dbUrl = r.s.config.databaseUrl;
    child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', 'api'], {
      cwd: ROOT,
      env: {
        ...process.env,
        MAILROOM_DATABASE_URL: dbUrl,
        MAILROOM_SECRET_KEY: SECRET,
        MAILROOM_PORT: '0',
        MAILROOM_SUBMISSION_PORT: '0',
        MAILROOM_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let log = '';
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    const port = await waitFor(
      () => {
        const line = log.split('\n').find((l) => l.includes('submission SMTP listener started'));
        return line ? (JSON.parse(line) as { port: number }).port : null;
      },
      // tsx compiles the CLI first: slow on a loaded machine.
      { timeoutMs: 90_000, what: 'the child to listen for submissions' },
    );

    const answered: string[] = [];
    let killed = false;
    const sends = Array.from({ length: CLIENTS }, async (_, i) => {
      const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, auth: { user: r.s.serverToken, pass: r.s.serverToken } });
      try {
        for (let n = 0; !killed; n++) {
          const info = await t.sendMail({ from: FROM, to: `c${i}-${n}@dest.example`, subject: `crash ${i}-${n}`, text: 'x' });
          const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1];
          answered.push(id);
          if (!killed && answered.length >= CLIENTS) {
            // The instant after a 250 (once every client has had time to have a message in flight).
            killed = true;
            child!.kill('SIGKILL');
          }
        }
      } catch {
        // The connection died with the process: that message was never answered 250.
      } finally {
        t.close();
      }
    });
    await Promise.all(sends);
    await new Promise((res) => (child!.exitCode !== null || child!.signalCode !== null ? res(null) : child!.once('exit', res)));
    child = null;
    assert.ok(answered.length >= CLIENTS);

    // Every answered message is stored, with its recipient queued.
    const rows = await r.s.ctx.db.selectFrom('messages').select(['id', 'status']).where('id', 'in', answered).execute();
    assert.equal(rows.length, answered.length, 'every 250 is in the database');
    // A worker (the test service's runner) delivers them all.
    await r.s.drain();
    const delivered = await r.s.ctx.db.selectFrom('messages').select('id').where('id', 'in', answered).where('status', '=', 'Sent').execute();
    assert.equal(delivered.length, answered.length, 'every 250 is delivered');
    assert.ok(r.sink.messages.length >= answered.length);
  });
});
