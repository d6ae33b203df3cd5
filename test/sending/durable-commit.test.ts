// The sending path's durable commit on SQLite: the WAL is fdatasynced through one descriptor kept open between
// group commits (an open and a close per group cost as much as the sync call), and drain() releases it.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GroupCommitter } from '../../src/sending/group-commit.js';
import { prepareMessage } from '../../src/sending/validate.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';

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

describe('durable commit (SQLite)', () => {
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

  it('syncs the WAL through one descriptor kept across groups, released by drain()', async (t) => {
    if (s.ctx.dialect !== 'sqlite' || !existsSync('/proc/self/fd')) return t.skip('SQLite on Linux only');
    const wal = `${resolve(s.ctx.config.databaseUrl.replace(/^file:\/\//i, ''))}-wal`;
    const c = new GroupCommitter(s.ctx);
    await c.submit(unit('a@example.net'));
    const during = openOn(wal);
    await c.submit(unit('b@example.net'));
    await c.submit(unit('c@example.net'));
    assert.equal(openOn(wal), during, 'no descriptor opened per group');
    await c.drain();
    assert.equal(openOn(wal), during - 1, 'drain() closes the descriptor');
    // Used again after a drain: the descriptor is opened anew and every answered message is stored.
    const r = await c.submit(unit('d@example.net'));
    assert.ok('outcomes' in r && r.outcomes[0].status === 200);
    assert.equal(openOn(wal), during);
    await c.drain();
    const rows = await s.ctx.db.selectFrom('message_recipients').select('email').orderBy('email').execute();
    assert.deepEqual(rows.map((x) => x.email), ['a@example.net', 'b@example.net', 'c@example.net', 'd@example.net']);
  });
});
