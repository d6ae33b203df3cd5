import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { GroupCommitter } from '../../src/sending/group-commit.js';
import { prepareMessage } from '../../src/sending/validate.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';

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
    const c = new GroupCommitter(s.ctx);
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
    const c = new GroupCommitter(s.ctx);
    await Promise.all([c.submit(unit('d@example.net')), c.submit(unit('e@example.net'))]);
    const r = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(s.ctx.db);
    assert.equal(r.rows[0].synchronous, 2);
    assert.equal(c.stats.transactions, 1);
  });
});
