// The InboundHookUrl goes through the webhooks' address guard when it is posted to, not only when it is
// saved (issue 27): a name whose DNS answers a private or documentation address after the URL was saved, and
// a literal one saved while MAILROOM_WEBHOOK_ALLOW_PRIVATE was on, are refused at connect time; nothing
// reaches the listener behind them and the message fails at once with the reason (no retries).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendInbound, startInbound, type InboundSetup } from './inbound-helpers.js';

describe('InboundHookUrl through the address guard at connect time', () => {
  let t: InboundSetup;
  before(async () => {
    t = await startInbound();
  });
  after(async () => {
    await t.close();
  });

  const idOf = (answer: { response: string }) => /as ([0-9a-f-]{36})/.exec(answer.response)![1];
  const details = async (id: string) => (await t.s.request('GET', `/messages/inbound/${id}/details`)).body;
  const setHook = async (url: string) => {
    const put = await t.s.request('PUT', '/server', { body: { InboundHookUrl: url } });
    assert.equal(put.status, 200, put.text);
  };

  for (const [name, address] of [
    ['rebind-loopback.example.test', '127.0.0.1'],
    ['rebind-doc.example.test', '192.0.2.1'],
    ['rebind-mapped.example.test', '::ffff:127.0.0.1'],
  ] as const) {
    it(`refuses a name that answers ${address} after the URL was saved`, async () => {
      t.s.ctx.config.webhookAllowPrivate = false;
      try {
        t.dns.set(name, [{ type: 'A', address: '93.184.216.34' }]);
        await setHook(`http://user:secret@${name}:${t.app.port}/inbound`);
        t.dns.set(name, [address.includes(':') ? { type: 'AAAA', address } : { type: 'A', address }]);
        const answer = await sendInbound(t.s, { to: t.address, subject: `rebound to ${address}` });
        assert.ok(answer.ok, answer.response);
        await t.s.drain();
        const d = await details(idOf(answer));
        assert.equal(d.Status, 'Failed');
        assert.equal(d.HookAttempts.length, 1);
        assert.match(d.HookAttempts[0].Error, /a private or reserved address/);
        assert.equal(t.app.requests.filter((r) => r.json?.Subject === `rebound to ${address}`).length, 0);
      } finally {
        t.s.ctx.config.webhookAllowPrivate = true;
      }
    });
  }

  it('refuses a literal loopback URL saved while private targets were allowed, once they no longer are', async () => {
    await setHook(`http://127.0.0.1:${t.app.port}/inbound`);
    t.s.ctx.config.webhookAllowPrivate = false;
    try {
      const answer = await sendInbound(t.s, { to: t.address, subject: 'saved while allowed' });
      assert.ok(answer.ok, answer.response);
      await t.s.drain();
      const d = await details(idOf(answer));
      assert.equal(d.Status, 'Failed');
      assert.match(d.HookAttempts[0].Error, /127\.0\.0\.1, a private or reserved address/);
      assert.equal(t.app.requests.filter((r) => r.json?.Subject === 'saved while allowed').length, 0);
    } finally {
      t.s.ctx.config.webhookAllowPrivate = true;
    }
  });
});
