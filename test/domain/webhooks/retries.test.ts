import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimJobs } from '../../../src/infra/jobs/claim.js';
import { purgeNotifications, webhookHandler } from '../../../src/domain/webhooks/deliver.js';
import { WEBHOOK_RETRY_SCHEDULE } from '../../../src/domain/webhooks/queue.js';
import { startService, type TestService } from '../../helpers/service.js';
import { withDeadline } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { addHook, insertMessage, record } from './fixtures.js';

const MIN = 60_000;

describe('webhook delivery: retries, 403, give-up, timeouts', () => {
  let s: TestService;
  let rx: WebhookReceiver;
  before(async () => {
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    rx = await startWebhookReceiver();
  });
  after(async () => {
    await s.close();
    await rx.close();
  });

  async function oneEvent(path: string) {
    const hook = await addHook(s, `${rx.url}${path}`, { Triggers: { Delivery: { Enabled: true } } });
    const messageId = await insertMessage(s);
    const [ev] = await record(s, [{ messageId, type: 'Delivered', details: { DeliveryMessage: 'smtp;250 OK' } }]);
    const notification = () =>
      s.ctx.db.selectFrom('webhook_notifications').selectAll().where('event_id', '=', ev.id).where('webhook_id', '=', hook.id).executeTakeFirstOrThrow();
    const hits = () => rx.requests.filter((r) => r.path === path);
    return { hook, ev, notification, hits };
  }

  it('retries a 500 on the published schedule, then delivers', async () => {
    rx.respond((r) => (r.path === '/retry' && rx.requests.filter((x) => x.path === '/retry').length <= 2 ? 500 : 200));
    const t = await oneEvent('/retry');
    await s.drain();
    assert.equal(t.hits().length, 1);
    assert.equal((await t.notification()).status, 'pending');
    s.clock.advance(MIN - 1_000);
    await s.drain();
    assert.equal(t.hits().length, 1, 'not before 1 minute');
    s.clock.advance(1_000);
    await s.drain();
    assert.equal(t.hits().length, 2, 'second attempt after 1 minute');
    s.clock.advance(5 * MIN - 1_000);
    await s.drain();
    assert.equal(t.hits().length, 2, 'not before 5 more minutes');
    s.clock.advance(1_000);
    await s.drain();
    assert.equal(t.hits().length, 3);
    const n = await t.notification();
    assert.equal(n.status, 'delivered');
    assert.equal(n.attempts, 3);
    assert.equal(n.last_status_code, 200);
    assert.deepEqual(t.hits().map((r) => r.headers['x-mailroom-attempt']), ['1', '2', '3']);
    assert.equal(new Set(t.hits().map((r) => r.headers['x-mailroom-notification-id'])).size, 1);
    assert.equal(new Set(t.hits().map((r) => r.body)).size, 1, 'the same body every time');

    const d = await s.request('GET', `/webhooks/${t.hook.id}/deliveries`);
    assert.equal(d.status, 200);
    assert.equal(d.body.TotalCount, 3);
    assert.deepEqual(d.body.Deliveries.map((x: any) => [x.Attempt, x.Status, x.ResponseCode]), [[3, 'Delivered', 200], [2, 'Retrying', 500], [1, 'Retrying', 500]]);
    const last = d.body.Deliveries[0];
    assert.equal(last.EventID, t.ev.id);
    assert.equal(last.RecordType, 'Delivery');
    assert.equal(last.NotificationStatus, 'Delivered');
    assert.equal(typeof last.DurationMs, 'number');
    assert.match(d.body.Deliveries[1].Error, /HTTP 500/);
    const page = await s.request('GET', `/webhooks/${t.hook.id}/deliveries?Count=1&Offset=1`);
    assert.deepEqual(page.body.Deliveries.map((x: any) => x.Attempt), [2]);
    assert.equal((await s.request('GET', `/webhooks/${t.hook.id}/deliveries?count=501`)).status, 422);
    assert.equal(await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'webhook').executeTakeFirst(), undefined);
  });

  it('403 stops at once; a redirect is not followed', async () => {
    rx.respond((r) => (r.path === '/forbidden' ? 403 : r.path === '/moved' ? 302 : 200));
    const t = await oneEvent('/forbidden');
    await s.drain();
    s.clock.advance(7 * 60 * MIN);
    await s.drain();
    assert.equal(t.hits().length, 1);
    const n = await t.notification();
    assert.equal(n.status, 'failed');
    assert.equal(n.last_status_code, 403);

    const m = await oneEvent('/moved');
    await s.drain();
    assert.equal(m.hits().length, 1);
    assert.equal((await m.notification()).status, 'pending', 'a 3xx is a failed attempt, retried');
    assert.equal((await m.notification()).last_status_code, 302);
    await s.request('DELETE', `/webhooks/${m.hook.id}`);
    s.clock.advance(MIN);
    await s.drain();
    assert.equal(m.hits().length, 1, 'a deleted webhook is not called again');
  });

  it('a receiver down for the whole schedule ends failed after 11 attempts', async () => {
    const dead = await startWebhookReceiver();
    await dead.down();
    const hook = await addHook(s, `${dead.url}/down`, { Triggers: { Delivery: { Enabled: true } } });
    const messageId = await insertMessage(s);
    const [ev] = await record(s, [{ messageId, type: 'Delivered', details: {} }]);
    const n = () => s.ctx.db.selectFrom('webhook_notifications').selectAll().where('event_id', '=', ev.id).where('webhook_id', '=', hook.id).executeTakeFirstOrThrow();
    await s.drain();
    for (const [i, delay] of WEBHOOK_RETRY_SCHEDULE.entries()) {
      const cur = await n();
      assert.equal(cur.attempts, i + 1);
      assert.equal(cur.status, 'pending');
      assert.equal(cur.next_attempt_at! - cur.last_attempt_at! >= delay, true);
      s.clock.advance(delay);
      await s.drain();
    }
    const done = await n();
    assert.equal(done.status, 'failed');
    assert.equal(done.attempts, 11);
    assert.equal(done.last_status_code, null);
    assert.match(done.last_error!, /ECONNREFUSED|connect/);
    s.clock.advance(24 * 60 * MIN);
    assert.equal(await s.drain(), 0);
    const d = await s.request('GET', `/webhooks/${hook.id}/deliveries?count=500`);
    assert.equal(d.body.TotalCount, 11);
    assert.equal(d.body.Deliveries[0].Status, 'Failed');
    assert.equal(d.body.Deliveries[0].NotificationStatus, 'Failed');

    // Settled notifications and their attempts are purged after 30 days.
    await purgeNotifications(s.ctx, s.clock.now() + 28 * 24 * 60 * MIN);
    assert.equal((await s.request('GET', `/webhooks/${hook.id}/deliveries`)).body.TotalCount, 11);
    await purgeNotifications(s.ctx, s.clock.now() + 31 * 24 * 60 * MIN);
    assert.equal((await s.request('GET', `/webhooks/${hook.id}/deliveries`)).body.TotalCount, 0);
  });

  it('a worker that dies holding the job loses nothing: the lease expires and the next worker delivers', async () => {
    rx.respond(200);
    const t = await oneEvent('/crash');
    // A worker claims the job and dies before any outcome is recorded.
    const [claimed] = await claimJobs(s.ctx.database, { queues: ['webhook'], workerId: 'dead-worker', limit: 100, leaseMs: 70_000, now: s.clock.now() });
    assert.ok(claimed);
    await s.drain();
    assert.equal(t.hits().length, 0, 'nothing while the lease is live');
    s.clock.advance(70_001);
    await s.drain();
    assert.equal(t.hits().length, 1);
    const n = await t.notification();
    assert.equal(n.status, 'delivered');
    assert.equal(n.attempts, 1, 'the attempt count comes from recorded attempts, not from claims');
  });

  it('a secret that no longer opens (master key changed) fails the notification instead of looping', async () => {
    const t = await oneEvent('/badkey');
    await s.ctx.db.updateTable('webhooks').set({ signing_secret: 'v1.AAAA.AAAA.AAAA' }).where('id', '=', t.hook.id).execute();
    await s.drain();
    const n = await t.notification();
    assert.equal(n.status, 'failed');
    assert.match(n.last_error!, /cannot sign the request/);
    assert.equal(t.hits().length, 0);
  });

  it('an answer slower than the per-attempt timeout is a failed attempt', async () => {
    const fast = webhookHandler(s.ctx, { timeoutMs: 300 });
    s.ctx.runner.register(fast);
    try {
      // The target never answers while held: the attempt can only end by being cut at the timeout (a drain
      // that does not return within the deadline means it was not cut).
      rx.hold();
      const answeredBefore = rx.answered();
      const t = await oneEvent('/slow');
      await withDeadline(s.drain(), 10_000, 'the attempt to be cut at its 300 ms timeout');
      assert.equal(rx.answered(), answeredBefore, 'the attempt ended before the target answered');
      const n = await t.notification();
      assert.equal(n.status, 'pending');
      assert.match(n.last_error!, /timed out after 300 ms/);
    } finally {
      rx.release();
      fast.close();
      s.ctx.runner.register(webhookHandler(s.ctx));
    }
  });
});
