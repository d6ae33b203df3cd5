// One MX (a real SMTP server on loopback, found through the loopback DNS server) that answers
// "451 4.7.1 Try again later" to the RCPT TO of many recipients: each one alone is that recipient's deferral,
// but the same reply for 5 distinct recipients within 60 s says it is about the destination, which is then
// paused and slowed like any throttling one. Other recipients of the domain go on until then, other domains
// throughout. Time is the injected clock (frozen), driven by hand; the queue is drained by hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SAME_REPLY_RECIPIENTS, SAME_REPLY_WINDOW_MS } from '../../../src/domain/delivery/pacing/window.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { eventsOf, jobsOf, send } from './helpers.js';

const FROM = 'sender@example.com';
const SEC = 1000;
const GREYLISTED = { code: 451, message: '4.7.1 Try again later' };

describe('the same deferral for many recipients of one destination', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let mx: SmtpSink;
  let refusedRcpts = 0;
  before(async () => {
    mx = await startSmtpSink({
      options: {
        onRcptTo(addr, _session, cb) {
          const r = mx.rcptReplies.get(addr.address.toLowerCase());
          if (!r) return cb();
          refusedRcpts++;
          cb(Object.assign(new Error(r.message), { responseCode: r.code }));
        },
      },
    });
    dns = await startDnsServer();
    for (const d of ['w.example', 'v.example']) {
      dns.set(d, [{ type: 'MX', exchange: `mx.${d}`, priority: 10 }]);
      dns.set(`mx.${d}`, [{ type: 'A', address: '127.0.0.1' }]);
    }
    // One connection to a destination at once: its jobs go one after the other, so the count is exact.
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DEST_MAX_CONNECTIONS: '1' }, config: { mxPort: mx.port } });
    await addConfirmedSender(s, FROM);
    s.clock.freeze();
  });
  after(async () => {
    await s.close();
    await Promise.all([mx.close(), dns.close()]);
  });

  const to = (address: string) => send(s, { From: FROM, To: address, Subject: `to ${address}`, TextBody: 'hello' });
  const delivered = (address: string) => mx.messages.filter((m) => m.to.includes(address)).length;
  const paceRow = (d: string) => s.ctx.db.selectFrom('destination_pace').selectAll().where('destination', '=', d).executeTakeFirst();
  const jobsFor = async (domain: string) => (await jobsOf(s)).filter((j) => j.group_key === domain);

  it(`slows the destination once ${SAME_REPLY_RECIPIENTS} distinct recipients got it within ${SAME_REPLY_WINDOW_MS / SEC} s`, async () => {
    const grey = Array.from({ length: 8 }, (_, i) => `g${i + 1}@w.example`);
    for (const g of grey) mx.rcptReplies.set(g, GREYLISTED);

    // Four recipients deferred (one short of the threshold): their own deferrals, nothing slowed.
    const first = [];
    for (const g of grey.slice(0, 4)) first.push(await to(g));
    await to('ok1@w.example');
    await to('x@v.example');
    await s.drain();
    assert.equal(refusedRcpts, 4);
    assert.equal(delivered('ok1@w.example'), 1, 'another recipient of the domain goes on');
    assert.equal(delivered('x@v.example'), 1);
    assert.equal(await paceRow('w.example'), undefined, 'four recipients: not the destination');
    for (const id of first) assert.equal((await eventsOf(s, id)).filter((e) => e.type === 'Transient').length, 1);
    // Two of them again (new messages): an address met again counts once.
    s.clock.advance(SAME_REPLY_WINDOW_MS / 2);
    for (const g of grey.slice(0, 2)) await to(g);
    await s.drain();
    assert.equal(refusedRcpts, 6);
    assert.equal(await paceRow('w.example'), undefined, 'the same four addresses again: still not the destination');

    // A fifth recipient within the window: the destination is slowed; the rest wait, not attempted.
    for (const g of grey.slice(4)) await to(g);
    await s.drain();
    assert.equal(refusedRcpts, 7, 'one more refused, then nothing tried');
    const row = await paceRow('w.example');
    assert.ok(row, 'w.example is slowed');
    assert.equal(row.last_reply, '451 4.7.1 Try again later');
    assert.equal(row.paused_until, s.clock.now() + 60 * SEC);
    const held = (await jobsFor('w.example')).filter((j) => j.attempts === 0);
    assert.equal(held.length, 3);
    assert.ok(held.every((j) => j.run_at >= row.paused_until));

    // During the pause: another domain goes at once; this one's new mail waits.
    await to('y@v.example');
    await to('ok2@w.example');
    await s.drain();
    assert.equal(delivered('y@v.example'), 1);
    assert.equal(delivered('ok2@w.example'), 0);
    assert.equal(refusedRcpts, 7);

    // The server takes them all again: after the pause, at the halved rate that recovers, all get through.
    mx.rcptReplies.clear();
    for (let i = 0; i < 60 && (await jobsFor('w.example')).length > 0; i++) {
      s.clock.advance(10 * SEC);
      await s.drain();
    }
    assert.equal((await jobsFor('w.example')).length, 0);
    for (const [i, g] of grey.entries()) assert.equal(delivered(g), i < 2 ? 2 : 1, g);
    assert.equal(delivered('ok2@w.example'), 1);
  });
});
