// tier: slow
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { addHook, insertMessage, record } from './fixtures.js';

const EVENTS = 10_000;

describe('a burst of webhook events', () => {
  let s: TestService;
  let rx: WebhookReceiver;
  before(async () => {
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    rx = await startWebhookReceiver();
  });
  after(async () => {
    await s.ctx.runner.stop();
    await s.close();
    await rx.close();
  });

  it(`delivers ${EVENTS} events completely, none twice, while the receiver answers slowly`, async () => {
    rx.delay(20);
    const hook = await addHook(s, `${rx.url}/burst`, { Triggers: { Delivery: { Enabled: true } } });
    const messageId = await insertMessage(s);
    s.ctx.runner.start();
    const started = Date.now();
    // Produced while the worker runs, in transactions of 1,000 events (as a busy delivery worker would).
    for (let i = 0; i < EVENTS; i += 1_000) {
      await record(s, Array.from({ length: 1_000 }, (_, j) => ({ messageId, type: 'Delivered' as const, recipient: `r${i + j}@example.net`, details: {} })));
      s.ctx.runner.wake();
    }
    const recorded = Date.now() - started;
    const delivered = () =>
      s.ctx.db.selectFrom('webhook_notifications').select((eb) => eb.fn.countAll<number>().as('n')).where('webhook_id', '=', hook.id).where('status', '=', 'delivered').executeTakeFirstOrThrow();
    await waitFor(async () => Number((await delivered()).n) === EVENTS, { timeoutMs: 240_000, intervalMs: 500, what: `${EVENTS} deliveries` });
    const took = Date.now() - started;
    console.log(`# ${EVENTS} webhook notifications: recorded in ${recorded} ms, all delivered in ${took} ms (${Math.round((EVENTS * 1000) / took)}/s, receiver delay 20 ms, at most ${rx.maxInFlight()} in flight)`);

    const ids = rx.requests.map((r) => r.headers['x-mailroom-notification-id']);
    assert.equal(rx.requests.length, EVENTS);
    assert.equal(new Set(ids).size, EVENTS, 'no notification twice');
    assert.equal(new Set(rx.requests.map((r) => r.headers['x-mailroom-event-id'])).size, EVENTS);
    assert.equal(new Set(rx.requests.map((r) => r.json.Recipient)).size, EVENTS);
    const left = await s.ctx.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('queue', '=', 'webhook').executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0);
  });
});
