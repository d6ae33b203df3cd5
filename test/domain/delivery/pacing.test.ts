// Pacing per destination, end to end: real MX peers on loopback found through the loopback DNS server. A
// destination that throttles (450 4.7.28 at RCPT, or 421 at the greeting) is paused and then sent to at a
// halved rate that recovers; its waiting messages are put back without being attempted (no event, no attempt
// counted); another destination is delivered meanwhile as if nothing happened. Time is the injected clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPacer } from '../../../src/domain/delivery/pacing/pacer.js';
import { formatStatus, statusReport } from '../../../src/domain/operations/status.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { eventsOf, jobsOf } from './helpers.js';
import { startThrottlingPeer, type ThrottlingPeer } from './pacing-peer.js';

const FROM = 'sender@example.com';
const SEC = 1000;

describe('pacing per destination', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let a: ThrottlingPeer;
  let b: ThrottlingPeer;
  let c: ThrottlingPeer;
  before(async () => {
    // Three MX hosts on one port (the MX port is one for all), on three loopback addresses.
    a = await startThrottlingPeer('127.0.0.4');
    b = await startThrottlingPeer('127.0.0.5', a.port);
    c = await startThrottlingPeer('127.0.0.6', a.port);
    dns = await startDnsServer();
    for (const [d, ip] of [['a.example', a.host], ['b.example', b.host], ['c.example', c.host]] as const) {
      dns.set(d, [{ type: 'MX', exchange: `mx.${d}`, priority: 10 }]);
      dns.set(`mx.${d}`, [{ type: 'A', address: ip }]);
    }
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DEST_MAX_CONNECTIONS: '2' }, config: { mxPort: a.port } });
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    await s.close();
    await Promise.all([a.close(), b.close(), c.close(), dns.close()]);
  });

  const sendTo = async (domain: string, n: number): Promise<string[]> => {
    const r = await s.request('POST', '/email/batch', {
      body: Array.from({ length: n }, (_, i) => ({ From: FROM, To: `r${i}@${domain}`, Subject: `paced ${i}`, TextBody: 'hello' })),
    });
    assert.equal(r.status, 200, r.text);
    return (r.body as Array<{ MessageID: string }>).map((m) => m.MessageID);
  };
  const jobsFor = async (domain: string) => (await jobsOf(s)).filter((j) => j.group_key === domain);
  const paceRow = (d: string) => s.ctx.db.selectFrom('destination_pace').selectAll().where('destination', '=', d).executeTakeFirst();

  it('slows down a destination that answers 450 4.7.28, delivers the others at once, and recovers', async () => {
    a.throttleAfter = 3;
    const idsA = await sendTo('a.example', 12);
    await sendTo('b.example', 12);
    await s.drain();

    // b.example: every message at once, in the same round as a.example's throttling.
    assert.equal(b.accepted.length, 12);
    // a.example: three taken, then the throttle; only the transactions already under way on its two
    // connections met it, the others waited and were put back without a try.
    assert.equal(a.accepted.length, 3);
    assert.ok(a.maxOpen <= 2, `at most 2 connections at once, saw ${a.maxOpen}`);
    const throttled = a.rcpts - 3;
    assert.ok(throttled >= 1 && throttled <= 2, `RCPTs refused: ${throttled}`);
    const row = await paceRow('a.example');
    assert.ok(row, 'a.example is paced');
    assert.equal(row.strikes, 1);
    assert.match(row.last_reply, /4\.7\.28/);
    assert.equal(await paceRow('b.example'), undefined, 'b.example never throttled: no state');

    const jobs = await jobsFor('a.example');
    assert.equal(jobs.length, 12 - 3);
    assert.equal(jobs.filter((j) => j.attempts === 1).length, throttled, 'only the refused transactions count an attempt');
    assert.equal(jobs.filter((j) => j.attempts === 0).length, 9 - throttled, 'the waiting ones were not attempted');
    assert.ok(jobs.every((j) => j.run_at >= s.clock.now() + 50 * SEC), 'nothing due before the pause ends');
    const transient = (await Promise.all(idsA.map((id) => eventsOf(s, id)))).flat().filter((e) => e.type === 'Transient');
    assert.equal(transient.length, throttled, 'a Transient event for each refused transaction only');
    assert.match(transient[0].details.DeliveryMessage, /^smtp;450 4\.7\.28/);

    // During the pause (1 minute after a first throttle): not one connection or RCPT to a.example.
    const seen = { rcpts: a.rcpts, connections: a.connections };
    s.clock.advance(30 * SEC);
    await s.drain();
    assert.deepEqual({ rcpts: a.rcpts, connections: a.connections }, seen);

    // The peer takes mail again. After the pause a.example gets one message at a time, spaced by the
    // halved rate, which grows with each delivery until the destination is no longer paced.
    a.throttleAfter = null;
    s.clock.advance(31 * SEC);
    await s.drain();
    assert.equal(a.accepted.length, 4, 'one message right after the pause, the next ones spaced');
    const rounds: number[] = [];
    for (let i = 0; i < 40 && a.accepted.length < 12; i++) {
      const before = a.accepted.length;
      s.clock.advance(10 * SEC);
      await s.drain();
      rounds.push(a.accepted.length - before);
    }
    assert.equal(a.accepted.length, 12, `all delivered (per 10 s: ${rounds.join(',')})`);
    assert.equal(a.rcpts, 12 + throttled, 'no attempt beyond one per message, plus the refused ones');
    assert.ok(rounds.length >= 2, `spread over time, not at once: ${rounds.join(',')}`);
    assert.equal(await paceRow('a.example'), undefined, 'recovered: no longer paced');
    assert.equal((await jobsFor('a.example')).length, 0);
  });

  it('a 421 at the greeting pauses the destination for every worker process sharing the database', async () => {
    c.greeting = { code: 421, message: '4.7.0 Try again later, closing connection.' };
    await sendTo('c.example', 6);
    await s.drain();
    assert.equal(c.accepted.length, 0);
    assert.ok(c.connections >= 1 && c.connections <= 2, `connections tried: ${c.connections}`);
    const row = await paceRow('c.example');
    assert.ok(row && row.paused_until > s.clock.now());
    assert.match(row.last_reply, /^421 4\.7\.0 Try again later/);

    // The operator sees it in `mailroom status`, with the reply that caused it.
    const status = formatStatus(await statusReport(s.ctx));
    assert.match(status, /Slowed destinations[^\n]*\n {2}c\.example: paused \d+ s more, \d+\/min after 1 throttle\(s\); last: 421 4\.7\.0 Try again later/);

    // Another worker process: its own pacer (own cache) reads the shared state and holds the mail back.
    const other = createPacer(s.ctx);
    const held = await other.admit('c.example', 999_001, 1);
    assert.equal(held.ok, false);
    assert.equal(!held.ok && held.until, row.paused_until);
    const free = await other.admit('b.example', 999_002, 1);
    assert.equal(free.ok, true, 'other destinations are not held');
    if (free.ok) await free.ticket.done([]);

    const tried = c.connections;
    s.clock.advance(45 * SEC);
    await s.drain();
    assert.equal(c.connections, tried, 'no connection during the pause');
    c.greeting = null;
    for (let i = 0; i < 60 && c.accepted.length < 6; i++) {
      s.clock.advance(10 * SEC);
      await s.drain();
    }
    assert.equal(c.accepted.length, 6);
  });
});
