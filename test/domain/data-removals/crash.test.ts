// A data removal interrupted by kill -9 loses nothing: the worker dies mid-way (some messages removed, the
// request still Pending, its job leased); once the lease runs out a fresh runner resumes and finishes it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';
import { cliArgs } from '../../helpers/process.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SECRET = 'test-secret-key-test-secret-key-0123456789'; // the key startService() uses
const MESSAGES = 400;

describe('a data removal killed mid-way', () => {
  let s: TestService;
  let child: ChildProcess | null = null;
  before(async () => {
    s = await startService();
  });
  after(async () => {
    child?.kill('SIGKILL');
    await s.close();
  });

  async function seed(to: string, n: number): Promise<void> {
    for (let i = 0; i < n; i += 100) {
      const ids = Array.from({ length: Math.min(100, n - i) }, () => randomUUID());
      const base = { server_id: s.serverId, stream_id: 'outbound', received_at: s.clock.now() };
      await s.ctx.db
        .insertInto('messages')
        .values(ids.map((id) => ({ ...base, id, from_email: 'sender@example.com', from_raw: 'sender@example.com', subject: 's', tag: null, html_body: null, text_body: 't', reply_to: null, headers: '[]', metadata: '{}', track_opens: 0, track_links: 'None', attachments: '[]', status: 'Sent', mime: null })))
        .execute();
      await s.ctx.db
        .insertInto('message_recipients')
        .values(ids.map((id) => ({ ...base, message_id: id, kind: 'To' as const, email: to, name: '', status: 'Sent', settled_at: null })))
        .execute();
    }
  }
  const count = async (to: string) =>
    (await s.ctx.db.selectFrom('message_recipients').select('id').where('email', '=', to).execute()).length;

  it('resumes after the lease and finishes the removal', async () => {
    await seed('gone@dest.example', MESSAGES);
    await seed('stays@dest.example', 3);
    const r = await s.request('POST', '/data-removals', { body: { RequestedBy: 'dpo@example.com', RequestedFor: 'gone@dest.example', NotifyWhenCompleted: false }, accountToken: s.accountToken });
    assert.equal(r.status, 200, r.text);

    // The worker: a separate process on the same database, removing one message per transaction.
    const dbUrl = s.config.databaseUrl;
    child = spawn(process.execPath, [...cliArgs(), 'serve', '--role', 'worker'], {
      cwd: ROOT,
      env: {
        ...process.env,
        MAILROOM_DATABASE_URL: dbUrl,
        MAILROOM_SECRET_KEY: SECRET,
        MAILROOM_DATA_REMOVAL_BATCH: '1',
        MAILROOM_INBOUND_SMTP_PORT: '0',
        MAILROOM_LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    await waitFor(async () => (await count('gone@dest.example')) < MESSAGES, { timeoutMs: 60_000, intervalMs: 2, what: 'the worker to start removing' });
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;

    const midway = await count('gone@dest.example');
    assert.ok(midway > 0 && midway < MESSAGES, `interrupted mid-way (${midway} of ${MESSAGES} left)`);
    assert.deepEqual((await s.request('GET', `/data-removals/${r.body.ID}`, { accountToken: s.accountToken })).body, { ID: r.body.ID, Status: 'Pending' });
    const [job] = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', 'data-removal').execute();
    assert.ok(job?.locked_until, 'the job is still there, leased by the dead worker');

    // Before the lease runs out no one takes it; after it, a fresh runner finishes the removal.
    s.clock.freeze(job.locked_until! - 1);
    assert.equal(await s.drain(), 0);
    s.clock.freeze(job.locked_until! + 1);
    await s.drain();
    s.clock.unfreeze();
    assert.equal(await count('gone@dest.example'), 0);
    assert.equal(await count('stays@dest.example'), 3);
    assert.deepEqual((await s.request('GET', `/data-removals/${r.body.ID}`, { accountToken: s.accountToken })).body, { ID: r.body.ID, Status: 'Done' });
    assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'data-removal').execute()).length, 0);
    const row = await s.ctx.db.selectFrom('data_removals').selectAll().where('id', '=', r.body.ID).executeTakeFirstOrThrow();
    assert.equal(JSON.parse(row.removed).messages >= 1, true);
  });
});
