// Back-pressure of the sending path (MAILROOM_SEND_QUEUE_LIMIT): while the database cannot take the waiting
// messages (held here by another connection's write lock), a send request that would queue beyond the limit
// is refused at once with 503, Retry-After and {ErrorCode, Message}, stores nothing, and the request already
// queued is answered 200 once the database is free again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { TEST_DIALECT } from '../../helpers/database.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';

const FROM = 'sender@example.com';

/** Another connection that holds the write lock the sending path's transaction needs, until release(). */
async function holdWriteLock(s: TestService): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: s.config.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  // Conflicts with the ROW EXCLUSIVE lock an INSERT takes, not with reads.
  await client.query('LOCK TABLE messages IN SHARE ROW EXCLUSIVE MODE');
  return {
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

describe('POST /email with a full sending queue', () => {
  let s: TestService;
  const msg = (to: string) => ({ From: FROM, To: to, Subject: 'Hi', TextBody: 'Hi' });
  const count = async () => Number((await s.ctx.db.selectFrom('messages').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    s = await startService({ env: { MAILROOM_SEND_QUEUE_LIMIT: '2' } });
    await addConfirmedSender(s, FROM);
  });
  after(() => s.close());

  it('answers 503 with Retry-After beyond the limit, and takes requests again once the queue drains', async (t) => {
    // SQLite's write lock held by another connection would stop the event loop itself (better-sqlite3 waits
    // for it synchronously), and the service's own connection also answers the token look-ups: there the
    // same back-pressure is tested on the batcher (test/domain/accepting/send-batcher.test.ts).
    if (TEST_DIALECT === 'sqlite') return t.skip('PostgreSQL: a table lock holds the group; SQLite: send-batcher.test.ts');
    const lock = await holdWriteLock(s);
    let released = false;
    try {
      const groups = s.ctx.sendBatcher.stats.transactions;
      // Two messages wait (the limit): one single send, being written and blocked by the lock ...
      const first = s.request('POST', '/email', { body: msg('first@example.net') });
      await waitFor(() => s.ctx.sendBatcher.stats.transactions > groups, { what: 'the first request to be written' });
      // ... and one queued behind it.
      const second = s.request('POST', '/email', { body: msg('second@example.net') });
      await waitFor(() => s.ctx.sendBatcher.waiting === 2, { what: 'the second request to be queued' });

      // A third message would go beyond: refused at once (the lock is still held).
      const refused = await s.request('POST', '/email', { body: msg('third@example.net') });
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.deepEqual(Object.keys(refused.body).sort(), ['ErrorCode', 'Message']);
      assert.equal(refused.body.ErrorCode, 100);
      assert.match(refused.body.Message, /again/);
      // So is a batch, as a whole.
      const batch = await s.request('POST', '/email/batch', { body: [msg('b1@example.net'), msg('b2@example.net')] });
      assert.equal(batch.status, 503, batch.text);
      assert.equal(batch.headers.get('retry-after'), '1');

      await lock.release();
      released = true;
      const [a, b] = await Promise.all([first, second]);
      assert.equal(a.status, 200, a.text);
      assert.equal(b.status, 200, b.text);
      assert.equal(await count(), 2, 'the refused requests stored nothing');

      const again = await s.request('POST', '/email', { body: msg('later@example.net') });
      assert.equal(again.status, 200, again.text);
      assert.equal(await count(), 3);
    } finally {
      if (!released) await lock.release();
    }
  });
});
