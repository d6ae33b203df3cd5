import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { deliveryJobsFor } from '../../../src/domain/delivery/jobs.js';
import { recordEvent } from '../../../src/domain/events/record.js';
import { enqueueJobs } from '../../../src/infra/jobs/enqueue.js';
import { purgeArchivedStreams } from '../../../src/domain/streams/purge.js';
import { startService, type TestService } from '../../helpers/service.js';
import { insertMessage } from './fixtures.js';

const DAY = 24 * 60 * 60 * 1000;
const TRIGGERS = JSON.stringify({
  Open: { Enabled: true, PostFirstOpenOnly: false },
  Click: { Enabled: true },
  Delivery: { Enabled: true },
  Bounce: { Enabled: true, IncludeContent: false },
  SpamComplaint: { Enabled: true, IncludeContent: false },
  SubscriptionChange: { Enabled: true },
});

describe('purge of archived streams', () => {
  let s: TestService;
  let promo: string[];
  let kept: string;
  let purgeAt: number;
  before(async () => {
    s = await startService();
    s.clock.freeze();
    const db = s.ctx.db;
    for (const ID of ['promo', 'later']) {
      const r = await s.request('POST', '/message-streams', { body: { ID, Name: ID, MessageStreamType: 'Broadcasts' } });
      assert.equal(r.status, 200, r.text);
    }
    await db
      .insertInto('webhooks')
      .values({ server_id: s.serverId, stream_id: 'promo', url: 'https://hooks.example.com/x', triggers: TRIGGERS, signing_secret: s.ctx.secrets.seal('k'), created_at: s.clock.now(), updated_at: null })
      .execute();
    promo = [];
    for (let i = 0; i < 5; i++) promo.push(await insertMessage(s, { streamId: 'promo', to: [`r${i}@example.org`, `x${i}@example.net`] }));
    kept = await insertMessage(s, { streamId: 'outbound', to: ['r0@example.org'] });
    await db
      .insertInto('message_attachments')
      .values({ message_id: promo[0], position: 0, name: 'a.pdf', content_type: 'application/pdf', content_id: null, content: 'AAAA', size: 3 })
      .execute();
    await db.transaction().execute(async (trx) => {
      await recordEvent(trx, s.ctx, { messageId: promo[1], serverId: s.serverId, streamId: 'promo', type: 'Delivered', recipient: 'r1@example.org', occurredAt: s.clock.now(), details: {} });
      await recordBounce(trx, s.ctx, { messageId: promo[2], email: 'r2@example.org', type: 'HardBounce', details: '550 5.1.1', bouncedAt: s.clock.now() });
      await recordBounce(trx, s.ctx, { messageId: kept, email: 'r0@example.org', type: 'HardBounce', details: '550 5.1.1', bouncedAt: s.clock.now() });
      await enqueueJobs(trx, [...deliveryJobsFor(promo[3], ['r3@example.org'], s.clock.now() + DAY), ...deliveryJobsFor(kept, ['r0@example.org'], s.clock.now() + DAY)], s.clock.now());
    });
    await s.request('POST', '/message-streams/promo/suppressions', { body: { Suppressions: [{ EmailAddress: 'manual@example.org' }] } });
    await s.request('POST', '/message-streams/outbound/suppressions', { body: { Suppressions: [{ EmailAddress: 'manual@example.org' }] } });

    const a = await s.request('POST', '/message-streams/promo/archive');
    purgeAt = Date.parse(a.body.ExpectedPurgeDate);
    s.clock.advance(10 * DAY);
    await s.request('POST', '/message-streams/later/archive');
  });
  after(async () => {
    s.clock.unfreeze();
    await s.close();
  });

  const count = async (table: 'messages' | 'message_recipients' | 'message_events' | 'message_attachments' | 'bounces', ids: string[]) => {
    const col = table === 'messages' ? 'id' : 'message_id';
    const r = await s.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where(col, 'in', ids).executeTakeFirstOrThrow();
    return Number(r.n);
  };

  it('is registered as a periodic task of the worker', () => {
    const tasks = (s.ctx.scheduler as unknown as { tasks: Array<{ name: string }> }).tasks;
    assert.ok(tasks.some((t) => t.name === 'archived-streams-purge'));
  });

  it('leaves the stream alone until its purge date', async () => {
    s.clock.freeze(purgeAt - 1);
    const r = await purgeArchivedStreams(s.ctx, s.clock.now());
    assert.deepEqual(r, { streams: 0, messages: 0 });
    assert.equal((await s.request('GET', '/message-streams/promo')).status, 200);
    assert.equal(await count('messages', promo), 5);
  });

  it('deletes the stream with its messages and everything naming them, in bounded batches', async () => {
    assert.ok((await count('message_events', promo)) >= 2);
    assert.equal(await count('bounces', promo), 1);

    s.clock.freeze(purgeAt);
    const first = await purgeArchivedStreams(s.ctx, purgeAt, { batch: 2, maxBatches: 2 });
    assert.deepEqual(first, { streams: 0, messages: 4 });
    assert.equal((await s.request('GET', '/message-streams/promo?x=1')).status, 200, 'the stream stays until its messages are gone');
    assert.equal((await s.request('POST', '/message-streams/promo/unarchive')).body.ErrorCode, 1232);

    const second = await purgeArchivedStreams(s.ctx, purgeAt, { batch: 2, maxBatches: 2 });
    assert.deepEqual(second, { streams: 1, messages: 1 });
    assert.equal((await s.request('GET', '/message-streams/promo')).body.ErrorCode, 1226);
    for (const t of ['messages', 'message_recipients', 'message_events', 'message_attachments', 'bounces'] as const) {
      assert.equal(await count(t, promo), 0, t);
    }
    const sup = await s.ctx.db.selectFrom('suppressions').select(['stream_id', 'email']).where('server_id', '=', s.serverId).orderBy('email').execute();
    assert.deepEqual(sup, [
      { stream_id: 'outbound', email: 'manual@example.org' },
      { stream_id: 'outbound', email: 'r0@example.org' },
    ]);
    const jobs = await s.ctx.db.selectFrom('jobs').select('payload').where('queue', '=', 'deliver').execute();
    assert.deepEqual(jobs.map((j) => JSON.parse(j.payload).messageId), [kept]);
    assert.equal((await s.ctx.db.selectFrom('webhooks').select('id').where('stream_id', '=', 'promo').execute()).length, 0);
    const orphans = await s.ctx.db
      .selectFrom('webhook_notifications')
      .select('id')
      .where('webhook_id', 'not in', s.ctx.db.selectFrom('webhooks').select('id'))
      .execute();
    assert.equal(orphans.length, 0);
  });

  it('keeps other streams and other data, and frees the ID', async () => {
    assert.equal(await count('messages', [kept]), 1);
    assert.equal(await count('bounces', [kept]), 1);
    assert.ok((await s.request('GET', '/message-streams/later')).body.ArchivedAt, 'a stream archived later is not due yet');
    const again = await s.request('POST', '/message-streams', { body: { ID: 'promo', Name: 'Promo again', MessageStreamType: 'Broadcasts' } });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await s.request('GET', '/message-streams/promo/suppressions/dump')).body.Suppressions, []);
    // Running again finds nothing more to do.
    assert.deepEqual(await purgeArchivedStreams(s.ctx, purgeAt + DAY), { streams: 0, messages: 0 });
  });
});
