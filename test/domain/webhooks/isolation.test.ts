import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_PER_WEBHOOK } from '../../../src/domain/webhooks/deliver.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { addHook, insertMessage, record } from './fixtures.js';

describe('a slow target does not hold up other webhooks', () => {
  let s: TestService;
  let slow: WebhookReceiver;
  let fast: WebhookReceiver;
  before(async () => {
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    slow = await startWebhookReceiver();
    fast = await startWebhookReceiver();
  });
  after(async () => {
    await slow.close(); // ends the requests still waiting, so the runner stops at once
    await s.ctx.runner.stop();
    await s.close();
    await fast.close();
  });

  it('caps the slow webhook at its per-webhook limit and delivers the other at once', async () => {
    // The slow target answers nothing until the test releases it: "at once" means while every request to
    // the slow target is still waiting, whatever the machine's speed (no wall-clock threshold).
    slow.hold();
    await addHook(s, `${slow.url}/slow`, { Triggers: { Delivery: { Enabled: true } } });
    await addHook(s, `${fast.url}/fast`, { MessageStream: 'broadcast', Triggers: { Delivery: { Enabled: true } } });
    const slowMsg = await insertMessage(s);
    await record(s, Array.from({ length: 100 }, (_, i) => ({ messageId: slowMsg, type: 'Delivered' as const, recipient: `r${i}@example.net`, details: {} })));
    s.ctx.runner.start();
    await waitFor(() => slow.inFlight() >= DEFAULT_PER_WEBHOOK, { timeoutMs: 30_000, what: 'the slow target at its cap' });
    const fastMsg = await insertMessage(s, { stream: 'broadcast' });
    await record(s, [{ messageId: fastMsg, streamId: 'broadcast', type: 'Delivered', details: {} }]);
    s.ctx.runner.wake();
    await waitFor(() => fast.requests.length === 1, { timeoutMs: 30_000, what: 'the fast webhook' });
    assert.equal(slow.answered(), 0, 'the fast webhook was delivered before any slow request was answered');
    assert.equal(slow.inFlight(), DEFAULT_PER_WEBHOOK, 'the slow webhook still holds its slots');
    assert.equal(slow.maxInFlight(), DEFAULT_PER_WEBHOOK, 'never more than the per-webhook cap at once');
  });
});
