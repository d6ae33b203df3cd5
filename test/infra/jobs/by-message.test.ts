import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Expression } from 'kysely';
import { cancelJobsOfMessages } from '../../../src/infra/jobs/cancel.js';
import { claimJobs } from '../../../src/infra/jobs/claim.js';
import { completeJobs } from '../../../src/infra/jobs/complete.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { findJobsOfMessages, hasJobConcerning } from '../../../src/infra/jobs/find.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

describe('jobs by message', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(() => s.close());

  const send = async (to: string) => {
    const r = await s.request('POST', '/email', { body: { From: 'sender@example.com', To: to, Subject: 'Hi', TextBody: 'Hello' } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };

  it('an accepted message has one deliver job per destination domain, found by its message id', async () => {
    const a = await send('one@example.org, two@example.org, three@example.net');
    const b = await send('four@example.org');
    const jobs = await findJobsOfMessages(s.ctx.db, [a, b], 'deliver');
    assert.deepEqual(
      jobs.map((j) => [j.message_id, j.group_key]).sort(),
      [
        [a, 'example.net'],
        [a, 'example.org'],
        [b, 'example.org'],
      ].sort(),
    );
    for (const j of jobs) assert.equal(JSON.parse(j.payload).messageId, j.message_id);
    // A claimed job carries its message id too.
    const claimed = await claimJobs(s.ctx.database, { queues: ['deliver'], workerId: 'w', limit: 10, leaseMs: 60_000, now: s.clock.now() });
    assert.ok(claimed.length >= 3);
    assert.ok(claimed.filter((j) => j.message_id === a).length === 2);
    assert.equal((await findJobsOfMessages(s.ctx.db, [a], 'webhook')).length, 0, 'another queue finds nothing');
    await completeJobs(s.ctx.db, claimed.map((j) => j.id));
    assert.deepEqual(await findJobsOfMessages(s.ctx.db, [a, b]), []);
  });

  it('cancels exactly the jobs of the given messages, in the caller transaction', async () => {
    const now = s.clock.now();
    const ids = Array.from({ length: 1200 }, (_, i) => `m-${i}`);
    await enqueueJobs(
      s.ctx.db,
      [...ids.map((id) => ({ queue: 'q-cancel', payload: { messageId: id }, runAt: now + 60_000, messageId: id })), { queue: 'q-cancel', payload: { other: 1 }, runAt: now + 60_000 }],
      now,
    );
    const doomed = ids.slice(0, 1100);
    // Rolled back with its transaction: nothing is cancelled.
    await assert.rejects(
      s.ctx.db.transaction().execute(async (trx) => {
        assert.equal(await cancelJobsOfMessages(trx, doomed), 1100);
        throw new Error('rollback');
      }),
      /rollback/,
    );
    assert.equal((await findJobsOfMessages(s.ctx.db, ids)).length, 1200);
    assert.equal(await s.ctx.db.transaction().execute((trx) => cancelJobsOfMessages(trx, doomed)), 1100);
    const left = await s.ctx.db.selectFrom('jobs').select(['message_id']).where('queue', '=', 'q-cancel').execute();
    assert.deepEqual(left.map((r) => r.message_id).sort(), [...ids.slice(1100), null].sort());
    assert.equal(await cancelJobsOfMessages(s.ctx.db, []), 0);
    await s.ctx.db.deleteFrom('jobs').where('queue', '=', 'q-cancel').execute();
  });

  it('tells whether a queued job concerns a message matching a condition, enqueued before a time', async () => {
    s.clock.freeze();
    const t0 = s.clock.now();
    const a = await send('five@example.org');
    s.clock.advance(1000);
    const b = await send('six@example.org');
    const isMessage = (id: string) => (messageId: Expression<string>) => s.ctx.db.selectFrom('messages').select('id').where('id', '=', messageId).where('id', '=', id);
    assert.equal(await hasJobConcerning(s.ctx.db, { queue: 'deliver', createdAtMost: t0, message: isMessage(a) }), true);
    assert.equal(await hasJobConcerning(s.ctx.db, { queue: 'deliver', createdAtMost: t0, message: isMessage(b) }), false, 'enqueued later');
    assert.equal(await hasJobConcerning(s.ctx.db, { queue: 'deliver', createdAtMost: t0 + 1000, message: isMessage(b) }), true);
    assert.equal(await hasJobConcerning(s.ctx.db, { queue: 'webhook', createdAtMost: t0 + 1000, message: isMessage(b) }), false, 'other queue');
    await s.ctx.db.transaction().execute((trx) => cancelJobsOfMessages(trx, [a]));
    assert.equal(await hasJobConcerning(s.ctx.db, { queue: 'deliver', createdAtMost: t0, message: isMessage(a) }), false, 'cancelled');
    s.clock.unfreeze();
  });
});
