// A message stored with the worker running in the same process: its 'inbound-hook' job is stored leased to
// that process's runner and handed to it after the commit, without a claim query (receive.ts,
// infra/jobs/enqueue-leased.ts); while a claim is needed (a job waiting in the database) it is enqueued as
// before and claimed in turn.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inboundHookGroup, INBOUND_HOOK_QUEUE } from '../../../src/domain/inbound/hook-queue.js';
import { waitFor } from '../../helpers/wait.js';
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
});
