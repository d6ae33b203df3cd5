// tier: slow
// `mailroom serve` as an operator runs it: a real process, its exit code and its lines. A second instance on
// a taken port stops at once naming the setting; SIGTERM under load drains and loses no accepted message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../src/infra/db/database.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { databaseUrlFor, type MailroomProcess, runMailroom, runToEnd } from './helpers/process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { waitFor } from './helpers/wait.js';

const SERVER_TOKEN = 'serve-test-server-token-000000000001';

describe('mailroom serve (a real process)', () => {
  let tdb: TestDatabase;
  let sink: SmtpSink;
  let env: Record<string, string>;
  let first: MailroomProcess;
  let port: number;

  before(async () => {
    tdb = await createTestDatabase();
    sink = await startSmtpSink();
    env = {
      MAILROOM_DATABASE_URL: databaseUrlFor(tdb),
      MAILROOM_PORT: '0',
      MAILROOM_INBOUND_SMTP_PORT: '0',
      MAILROOM_SUBMISSION_PORT: '0',
      MAILROOM_SERVER_TOKEN: SERVER_TOKEN,
      MAILROOM_ACCOUNT_TOKEN: 'serve-test-account-token-00000000001',
      MAILROOM_SECRET_KEY: 'serve-test-secret-key-0123456789abcdef',
      MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`,
      MAILROOM_SHUTDOWN_TIMEOUT_SECONDS: '20',
    };
    first = runMailroom(['serve'], env);
    // Starting tsx and migrating a new database can take a while on a busy machine: a generous wait.
    port = Number((await first.waitForLine(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/, 90_000))[1]);
    await first.waitForLine(/mailroom worker started/, 90_000);
    const added = await runToEnd(['sender', 'add', 'ops@example.test', '--name', 'Ops', '--confirmed'], env);
    assert.equal(added.code, 0, added.stderr);
  });

  after(async () => {
    first?.kill('SIGKILL');
    await sink?.close();
    await tdb?.drop();
  });

  it('a second instance on the taken port exits non-zero within seconds, naming MAILROOM_PORT and the port', async () => {
    // The ceiling is loose because starting Node with tsx alone takes seconds on a loaded machine; the
    // point is that the process ends by itself instead of running on without its API.
    const t0 = Date.now();
    const second = await runToEnd(['serve'], { ...env, MAILROOM_PORT: String(port) }, 60_000);
    const elapsed = Date.now() - t0;
    assert.equal(second.code, 2);
    assert.ok(elapsed < 45_000, `took ${elapsed} ms`);
    assert.match(second.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(MAILROOM_PORT\\): the port is already in use`));
    assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
    // The first-start note names the console at the port given (MAILROOM_PUBLIC_URL unset follows it).
    assert.match(second.stdout, new RegExp(`web console is at http://localhost:${port}/ `));
    // It never started background work: no worker, no inbound listener.
    assert.doesNotMatch(second.stdout, /worker started|inbound SMTP listener started/);
    // The first instance still answers.
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  });

  it('SIGTERM under load: in-flight requests finish, every accepted message is stored and delivered, exit 0', async () => {
    const accepted: string[] = [];
    const statuses = new Map<number, number>();
    let stop = false;
    const body = JSON.stringify({ From: 'ops@example.test', To: 'someone@example.net', Subject: 'drain', TextBody: 'hello' });
    const loop = async () => {
      while (!stop) {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/email`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-server-token': SERVER_TOKEN },
            body,
          });
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          const j = (await r.json()) as { MessageID?: string };
          if (r.status === 200 && j.MessageID) accepted.push(j.MessageID);
        } catch {
          // The listener is closed: the client knows nothing was accepted.
          if (first.child.exitCode !== null) return;
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    await waitFor(() => accepted.length >= 150, { timeoutMs: 30_000, what: '150 accepted messages' });
    const signalledAt = Date.now();
    first.kill('SIGTERM');
    const code = await first.exited;
    const drainMs = Date.now() - signalledAt;
    stop = true;
    await Promise.all(loops);
    assert.equal(code, 0, first.stderr());
    assert.ok(drainMs < 20_000, `drain took ${drainMs} ms`);
    // 200, or 503 with Connection: close for a request that arrived on a kept-alive connection once the
    // drain began (nothing stored; the client retries elsewhere). Never a 500.
    assert.deepEqual([...statuses.keys()].filter((s) => s !== 200 && s !== 503), [], `statuses ${JSON.stringify([...statuses])}`);
    assert.match(first.stdout(), /shutting down/);

    const db = openDatabase(tdb.url, tdb.options);
    try {
      const stored = new Set((await db.db.selectFrom('messages').select('id').execute()).map((r) => r.id));
      const missing = accepted.filter((id) => !stored.has(id));
      assert.deepEqual(missing, [], `${missing.length} of ${accepted.length} accepted messages not stored`);
      // Nothing is left leased by the stopped worker: finished, or handed back.
      const leased = await db.db.selectFrom('jobs').select('id').where('locked_by', 'is not', null).where('locked_until', '>', Date.now()).execute();
      assert.equal(leased.length, 0);
    } finally {
      await db.close();
    }
    // The drain let in-flight deliveries finish: some mail reached the relay before the exit.
    assert.ok(sink.messages.length > 0);
  });
});

describe('start errors are one line', () => {
  it('an unreachable PostgreSQL names the setting and hides the password', async () => {
    const r = await runToEnd(['migrate'], { MAILROOM_DATABASE_URL: 'postgres://mailer:s3cr3t-pass@127.0.0.1:1/mail' });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /cannot reach the database \(MAILROOM_DATABASE_URL=postgres:\/\/mailer:\*\*\*@127\.0\.0\.1:1\/mail\)/);
    assert.doesNotMatch(r.stderr, /s3cr3t-pass/);
  });

  it('a misspelled MAILROOM_* variable stops the start, naming the nearest known one', async () => {
    const r = await runToEnd(['serve'], { MAILROOM_SMTP_RELAI: 'smtp://relay.example:587', MAILROOM_DATABASE_URL: ':memory:' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /MAILROOM_SMTP_RELAI: unknown setting \(did you mean MAILROOM_SMTP_RELAY\?\)/);
  });
});
