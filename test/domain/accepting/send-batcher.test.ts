import assert from 'node:assert/strict';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SendBatcher } from '../../../src/domain/accepting/send-batcher.js';
import { prepareMessage } from '../../../src/domain/accepting/validate.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

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
    if (s.ctx.dialect !== 'sqlite') return;
    const c = new SendBatcher(s.ctx);
    await Promise.all([c.submit(unit('d@example.net')), c.submit(unit('e@example.net'))]);
    const r = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(s.ctx.db);
    assert.equal(r.rows[0].synchronous, 2);
    assert.equal(c.stats.transactions, 1);
  });

  // The durable commit on SQLite without the writer thread (MAILROOM_SEND_WRITER_THREAD=false): the WAL is
  // fdatasynced through one descriptor kept open between group commits (an open and a close per group cost as
  // much as the sync call), and drain() releases it.
  it('syncs the WAL through one descriptor kept across groups, released by drain()', async (t) => {
    if (s.ctx.dialect !== 'sqlite' || !existsSync('/proc/self/fd')) return t.skip('SQLite on Linux only');
    const wal = `${resolve(s.ctx.config.databaseUrl.replace(/^file:\/\//i, ''))}-wal`;
    const c = new SendBatcher({ ...s.ctx, config: { ...s.ctx.config, sendWriterThread: false } });
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

  // The writer thread (MAILROOM_SEND_WRITER_THREAD=true on a SQLite file): its groups are stored and answered in order, and drain()
  // ends the thread with its connection and WAL descriptor; a later send starts a new one.
  it('writes on the writer thread, which drain() ends and a later send starts again', async (t) => {
    if (s.ctx.dialect !== 'sqlite' || !existsSync('/proc/self/fd')) return t.skip('SQLite on Linux only');
    const wal = `${resolve(s.ctx.config.databaseUrl.replace(/^file:\/\//i, ''))}-wal`;
    const before = openOn(wal);
    const c = new SendBatcher({ ...s.ctx, config: { ...s.ctx.config, sendWriterThread: true } });
    const results = await Promise.all(['thr-a', 'thr-b', 'thr-c'].map((n) => c.submit(unit(`${n}@example.net`))));
    for (const r of results) assert.ok('outcomes' in r && r.outcomes[0].status === 200);
    assert.ok(openOn(wal) > before, 'the thread has the WAL open');
    await c.drain();
    assert.equal(openOn(wal), before, 'drain() ends the thread and closes what it opened');
    const r = await c.submit(unit('thr-d@example.net'));
    assert.ok('outcomes' in r && r.outcomes[0].status === 200);
    await c.drain();
    const rows = await s.ctx.db.selectFrom('message_recipients').select('email').where('email', 'like', 'thr-%').orderBy('email').execute();
    assert.deepEqual(rows.map((x) => x.email), ['thr-a@example.net', 'thr-b@example.net', 'thr-c@example.net', 'thr-d@example.net']);
  });
});
