import assert from 'node:assert/strict';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SendBatcher } from '../../../src/domain/accepting/send-batcher.js';
import { prepareMessage } from '../../../src/domain/accepting/validate.js';
import { ServiceBusy } from '../../../src/domain/errors.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';

/** Descriptors of this process open on `path` (Linux /proc). */
function openOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
    } catch {
      // closed while listing
    }
  }
  return n;
}

describe('group commit', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(() => s.close());

  const unit = (to: string) => ({
    sender: { accountId: s.accountId, serverId: s.serverId },
    slots: [{ message: prepareMessage({ From: 'sender@example.com', To: to, TextBody: 'x' }, { allowTemplateModel: false }) }],
    idempotency: null,
  });

  it('commits concurrent requests together, and a failing one alone without harming the others', async () => {
    const c = new SendBatcher(s.ctx);
    const broken = unit('b@example.net');
    // A message that passed validation but cannot be stored (no recipient row to record the event for).
    (broken.slots[0].message as any).recipients = [];
    const results = await Promise.allSettled([c.submit(unit('a@example.net')), c.submit(broken), c.submit(unit('c@example.net'))]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.equal(results[2].status, 'fulfilled');
    const ids = [results[0], results[2]].map((r) => ((r as PromiseFulfilledResult<any>).value.outcomes[0].result.MessageID as string));
    const rows = await s.ctx.db.selectFrom('messages').select(['id']).execute();
    assert.deepEqual(rows.map((r) => r.id).sort(), ids.sort());
    const rc = await s.ctx.db.selectFrom('message_recipients').select('email').orderBy('email').execute();
    assert.deepEqual(rc.map((r) => r.email), ['a@example.net', 'c@example.net']);
  });

  it('leaves the SQLite connection at synchronous=FULL for everyone else', async () => {
    if (s.ctx.database.dialect !== 'sqlite') return;
    const c = new SendBatcher(s.ctx);
    await Promise.all([c.submit(unit('d@example.net')), c.submit(unit('e@example.net'))]);
    const r = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(s.ctx.db);
    assert.equal(r.rows[0].synchronous, 2);
    assert.equal(c.stats.transactions, 1);
  });

  // The durable commit on SQLite: the WAL is
  // fdatasynced through one descriptor kept open between group commits (an open and a close per group cost as
  // much as the sync call), and drain() releases it.
  it('syncs the WAL through one descriptor kept across groups, released by drain()', async (t) => {
    if (s.ctx.database.dialect !== 'sqlite' || !existsSync('/proc/self/fd')) return t.skip('SQLite on Linux only');
    const wal = `${resolve(s.ctx.config.databaseUrl.replace(/^file:\/\//i, ''))}-wal`;
    const c = new SendBatcher(s.ctx);
    await c.submit(unit('wal-a@example.net'));
    const during = openOn(wal);
    await c.submit(unit('wal-b@example.net'));
    await c.submit(unit('wal-c@example.net'));
    assert.equal(openOn(wal), during, 'no descriptor opened per group');
    await c.drain();
    assert.equal(openOn(wal), during - 1, 'drain() closes the descriptor');
    // Used again after a drain: the descriptor is opened anew and every answered message is stored.
    const r = await c.submit(unit('wal-d@example.net'));
    assert.ok('outcomes' in r && r.outcomes[0].status === 200);
    assert.equal(openOn(wal), during);
    await c.drain();
    const rows = await s.ctx.db.selectFrom('message_recipients').select('email').where('email', 'like', 'wal-%').orderBy('email').execute();
    assert.deepEqual(rows.map((x) => x.email), ['wal-a@example.net', 'wal-b@example.net', 'wal-c@example.net', 'wal-d@example.net']);
  });

  // Back-pressure while the database cannot take the group (SQLite's one connection held here, which the
  // group commit waits for without stopping the event loop): beyond MAILROOM_SEND_QUEUE_LIMIT a request is
  // refused at once as ServiceBusy (503 with Retry-After over HTTP: test/http/routes/email-backpressure),
  // stores nothing, and the queued requests are answered once the database is free again.
  it('refuses beyond the queue limit while a group waits for the database, then takes requests again', async (t) => {
    if (s.ctx.database.dialect !== 'sqlite') return t.skip('the PostgreSQL case holds a table lock: test/http/routes/email-backpressure');
    const c = new SendBatcher({ ...s.ctx, config: { ...s.ctx.config, sendQueueLimit: 2 } });
    const count = async () => Number((await s.ctx.db.selectFrom('message_recipients').select((e) => e.fn.countAll().as('n')).where('email', 'like', 'bp-%').executeTakeFirstOrThrow()).n);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const taken = new Promise<void>((r) => (holding = r));
    const connection = s.ctx.db.connection().execute(async () => {
      holding();
      await held;
    });
    await taken;
    try {
      const first = c.submit(unit('bp-first@example.net'));
      await waitFor(() => c.stats.transactions === 1, { what: 'the first request to be written' });
      const second = c.submit(unit('bp-second@example.net'));
      assert.equal(c.waiting, 2);
      const refused = await c.submit(unit('bp-third@example.net'));
      assert.ok('error' in refused && refused.error instanceof ServiceBusy, 'refused as busy');
      assert.equal(refused.error.retryAfter, 1);
      release();
      await connection;
      for (const r of await Promise.all([first, second])) assert.ok('outcomes' in r && r.outcomes[0].status === 200);
      assert.equal(await count(), 2, 'the refused request stored nothing');
      const again = await c.submit(unit('bp-later@example.net'));
      assert.ok('outcomes' in again && again.outcomes[0].status === 200);
      assert.equal(await count(), 3);
    } finally {
      release();
      await connection;
      await c.drain();
    }
  });
});
