// A message stored with the worker running in the same process: its 'inbound-hook' job is stored leased to
// that process's runner and handed to it after the commit, without a claim query (receive.ts,
// infra/jobs/enqueue-leased.ts), with the payload intake already holds, so the post does not read the
// message back; while a claim is needed (a job waiting in the database) it is enqueued as before and claimed
// in turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inboundHookGroup, INBOUND_HOOK_QUEUE } from '../../../src/domain/inbound/hook-queue.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';
import { sendInbound, startInbound, type InboundSetup } from './inbound-helpers.js';

describe('inbound hook jobs handed to the local runner', () => {
  let t: InboundSetup;
  before(async () => {
    t = await startInbound({}, undefined, { startWorker: true });
  });
  after(() => t.close());

  const posted = (subject: string) => t.app.requests.some((r) => r.json?.Subject === subject);
  /** True once the runner has found the hook queue empty (a probe slot, given back at once). */
  const idle = () => {
    const slot = t.s.ctx.runner.reserve(INBOUND_HOOK_QUEUE, inboundHookGroup(t.s.serverId));
    slot?.cancel();
    return slot !== null;
  };

  it('posts each message without claiming its job', async () => {
    const runner = t.s.ctx.runner;
    await waitFor(idle, { what: 'the runner to find the hook queue empty' });
    const before = { ...runner.stats };
    for (let i = 0; i < 3; i++) {
      const a = await sendInbound(t.s, { to: t.address, subject: `handover ${i}` });
      assert.ok(a.ok, a.response);
      await waitFor(() => posted(`handover ${i}`), { what: `message ${i} posted` });
    }
    await waitFor(async () => (await t.s.ctx.db.selectFrom('inbound_messages').select('id').where('status', '=', 'Processed').execute()).length === 3, { what: 'three messages Processed' });
    assert.equal(runner.stats.handedOver - before.handedOver, 3, 'each job handed over after its commit');
    assert.equal(runner.stats.claimed - before.claimed, 0, 'no job taken by a claim');
    const jobs = await t.s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', INBOUND_HOOK_QUEUE).execute();
    assert.equal(jobs.length, 0, 'every hook job settled');
  });

  it('posts the message as stored, with the hook password, then keeps it without its attachment content', async () => {
    const runner = t.s.ctx.runner;
    const put = await t.s.request('PUT', '/server', { body: { InboundHookUrl: `http://hook-user:s3cr%40t@127.0.0.1:${t.app.port}/inbound` } });
    assert.equal(put.status, 200, put.text);
    await waitFor(idle, { what: 'the runner to find the hook queue empty' });
    const before = { ...runner.stats };
    const a = await sendInbound(t.s, { to: t.address, subject: 'handed with content', attachments: [{ filename: 'a.txt', content: 'attached words' }] });
    assert.ok(a.ok, a.response);
    await waitFor(() => posted('handed with content'), { what: 'the message posted' });
    const req = t.app.requests.find((r) => r.json?.Subject === 'handed with content')!;
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('hook-user:s3cr@t').toString('base64')}`);
    assert.equal(Buffer.from(req.json.Attachments[0].Content, 'base64').toString(), 'attached words');
    assert.equal(runner.stats.handedOver - before.handedOver, 1);
    assert.equal(runner.stats.claimed - before.claimed, 0);
    const id = req.headers['x-mailroom-inbound-id'] as string;
    await waitFor(async () => (await t.s.ctx.db.selectFrom('inbound_messages').select('status').where('id', '=', id).executeTakeFirst())?.status === 'Processed', { what: 'the message Processed' });
    // What was posted is what was stored; once posted, the attachment's content is dropped (hook-delivery.ts).
    const details = await t.s.request('GET', `/messages/inbound/${id}/details`);
    assert.equal(details.body.Subject, 'handed with content');
    assert.equal(details.body.Attachments[0].Name, 'a.txt');
    assert.equal(details.body.Attachments[0].Content, '');
  });

  it('a message waiting for its server\'s slot goes to the InboundHookUrl set while it waited', async () => {
    const runner = t.s.ctx.runner;
    const moved = await startWebhookReceiver();
    try {
      await waitFor(idle, { what: 'the runner to find the hook queue empty' });
      const before = { ...runner.stats };
      // The application stops answering: 16 posts fill the server's slots (perServer), the 17th message's
      // job is handed over and waits in this process for a slot.
      t.app.hold();
      for (let i = 0; i < 17; i++) {
        const a = await sendInbound(t.s, { to: t.address, subject: `slow app ${i}` });
        assert.ok(a.ok, a.response);
      }
      await waitFor(() => t.app.inFlight() === 16, { what: '16 posts in flight' });
      assert.equal(runner.stats.handedOver - before.handedOver, 17);
      const put = await t.s.request('PUT', '/server', { body: { InboundHookUrl: `${moved.url}/inbound` } });
      assert.equal(put.status, 200, put.text);
      t.app.release();
      await waitFor(() => moved.requests.some((r) => r.json?.Subject === 'slow app 16'), { what: 'the waiting message posted to the new URL' });
      assert.equal(moved.requests.length, 1, 'only the message that had not been posted moved');
      assert.ok(!t.app.requests.some((r) => r.json?.Subject === 'slow app 16'));
    } finally {
      t.app.release();
      await moved.close();
    }
  });
});
