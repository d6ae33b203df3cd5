// A worker killed in the middle of an SMTP transaction loses nothing: its job keeps its lease, and once the
// lease has run out another runner claims the job again and delivers the message (at-least-once).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { eventsOf, jobsOf, messageOf, recipientsOf, send } from './helpers.js';
import { cliArgs } from '../../helpers/process.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SECRET = 'test-secret-key-test-secret-key-0123456789'; // the key startService() uses

describe('a worker killed mid-delivery', () => {
  let s: TestService;
  let sink: SmtpSink;
  let child: ChildProcess | null = null;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(async () => {
    child?.kill('SIGKILL');
    await s.close();
    await sink.close();
  });

  it('leaves the job leased, and a fresh runner delivers it after the lease', async () => {
    const id = await send(s, { From: 'sender@example.com', To: 'rcpt@dest.example', Subject: 'survive', TextBody: 'x' });

    // Hold the DATA phase and note when the worker got there.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inData = false;
    Object.defineProperty(sink, 'holdData', {
      configurable: true,
      get: () => {
        inData = true;
        return held;
      },
    });

    // The worker: a separate process on the same database, with a 2-second lease.
    const dbUrl = s.config.databaseUrl;
    child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', 'worker'], {
      cwd: ROOT,
      env: {
        ...process.env,
        MAILROOM_DATABASE_URL: dbUrl,
        MAILROOM_SECRET_KEY: SECRET,
        MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`,
        MAILROOM_DELIVERY_LEASE_SECONDS: '2',
        MAILROOM_INBOUND_SMTP_PORT: '0',
        MAILROOM_LOG_LEVEL: process.env.CRASH_DEBUG ? 'debug' : 'silent',
      },
      stdio: process.env.CRASH_DEBUG ? 'inherit' : 'ignore',
    });
    await waitFor(() => inData, { timeoutMs: 30_000, what: 'the worker to reach DATA' });
    const [claimed] = await jobsOf(s);
    assert.ok(claimed.locked_by && claimed.locked_until, 'claimed by the child');

    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    child = null;
    // The lease as the dead worker left it: its heartbeat may have renewed it after the read above.
    const [leased] = await jobsOf(s);
    assert.equal(leased.locked_by, claimed.locked_by);
    // The held transaction never completes for the dead client: answer it with a failure so the sink
    // does not count it, then hold no more.
    sink.dataReplies.push({ code: 451, message: '4.3.0 client went away' });
    Object.defineProperty(sink, 'holdData', { configurable: true, writable: true, value: null });
    release();

    // Nothing recorded, nothing lost: the job is still there, the recipient still Queued.
    assert.equal((await recipientsOf(s, id))[0].status, 'Queued');
    assert.equal((await jobsOf(s)).length, 1);
    assert.equal(sink.messages.filter((m) => m.to[0] === 'rcpt@dest.example').length, 0);

    // Before the lease runs out no one else takes the job.
    s.clock.freeze(leased.locked_until! - 1);
    assert.equal(await s.drain(), 0);
    // After it, a fresh runner does.
    s.clock.freeze(leased.locked_until! + 1);
    await s.drain();
    s.clock.unfreeze();
    assert.equal(sink.messages.filter((m) => m.to[0] === 'rcpt@dest.example').length, 1);
    assert.equal((await recipientsOf(s, id))[0].status, 'Sent');
    assert.equal((await messageOf(s, id)).status, 'Sent');
    assert.equal((await eventsOf(s, id)).filter((e) => e.type === 'Delivered').length, 1);
    assert.equal((await jobsOf(s)).length, 0);
  });
});
