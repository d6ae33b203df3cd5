// Direct delivery to the recipient domain's MX hosts, found through a real DNS server on loopback, and the
// per-recipient outcomes of real SMTP answers: 250 delivered, 450 retried on the schedule, 550 bounced,
// give-up after the maximum age.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { eventsOf, jobsOf, messageOf, recipientsOf, send } from './helpers.js';

const FROM = 'sender@example.com';
const MIN = 60_000;
const HOUR = 60 * MIN;

describe('delivery to MX hosts', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    // The preferred MX refuses connections (nothing listens on 127.0.0.2); the second one is the sink.
    dns.set('dest.example', [
      { type: 'MX', exchange: 'mx1.dest.example', priority: 10 },
      { type: 'MX', exchange: 'mx2.dest.example', priority: 20 },
    ]);
    dns.set('mx1.dest.example', [{ type: 'A', address: '127.0.0.2' }]);
    dns.set('mx2.dest.example', [{ type: 'A', address: '127.0.0.1' }]);
    dns.set('nomx.example', [{ type: 'A', address: '127.0.0.1' }]);
    dns.set('nullmx.example', [{ type: 'MX', exchange: '', priority: 0 }]);
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DELIVERY_MAX_AGE_HOURS: '72' }, config: { mxPort: sink.port } });
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
  });

  it('tries MX hosts by preference, moves on when one cannot be reached, and falls back to the A record', async () => {
    const id = await send(s, { From: FROM, To: 'a@dest.example, b@nomx.example', Subject: 'mx', TextBody: 'hello' });
    const before = sink.messages.length;
    await s.drain();
    assert.deepEqual(sink.messages.slice(before).map((m) => m.to[0]).sort(), ['a@dest.example', 'b@nomx.example']);
    const delivered = (await eventsOf(s, id)).filter((e) => e.type === 'Delivered');
    const a = delivered.find((e) => e.recipient === 'a@dest.example')!;
    assert.equal(a.details.DestinationServer, 'mx2.dest.example');
    assert.equal(a.details.DestinationIP, '127.0.0.1');
    assert.equal(delivered.find((e) => e.recipient === 'b@nomx.example')!.details.DestinationServer, 'nomx.example');
    assert.equal((await messageOf(s, id)).status, 'Sent');
  });

  it('records 250 / 450 / 550 per recipient, retries the 450 after the backoff, then finishes the message', async () => {
    sink.rcptReplies.set('later@dest.example', { code: 450, message: '4.2.1 Mailbox busy, try later' });
    sink.rcptReplies.set('gone@dest.example', { code: 550, message: '5.1.1 No such user here' });
    const id = await send(s, {
      From: FROM,
      To: 'ok@dest.example, later@dest.example, gone@dest.example',
      Subject: 'mixed',
      TextBody: 'hello',
      Attachments: [{ Name: 'a.txt', Content: Buffer.from('attached').toString('base64'), ContentType: 'text/plain' }],
    });
    const before = sink.messages.length;
    await s.drain();
    assert.deepEqual(sink.messages.slice(before).map((m) => m.to[0]), ['ok@dest.example']);

    const byEmail = async () => Object.fromEntries((await recipientsOf(s, id)).map((r) => [r.email, r]));
    let r = await byEmail();
    assert.equal(r['ok@dest.example'].status, 'Sent');
    assert.equal(r['gone@dest.example'].status, 'Bounced');
    assert.equal(r['later@dest.example'].status, 'Transient');
    assert.equal(r['later@dest.example'].settled_at, null);

    const events = await eventsOf(s, id);
    const bounced = events.find((e) => e.type === 'Bounced')!;
    assert.equal(bounced.recipient, 'gone@dest.example');
    const bounce = await s.ctx.db.selectFrom('bounces').selectAll().where('id', '=', bounced.details.BounceID).executeTakeFirstOrThrow();
    assert.equal(bounce.type, 'HardBounce');
    assert.equal(bounce.message_id, id);
    assert.match(bounce.details, /550 5\.1\.1 No such user here/);
    const suppressed = await s.ctx.db.selectFrom('suppressions').selectAll().where('email', '=', 'gone@dest.example').executeTakeFirst();
    assert.equal(suppressed?.reason, 'HardBounce');
    const transient = events.find((e) => e.type === 'Transient')!;
    assert.equal(transient.recipient, 'later@dest.example');
    assert.match(transient.details.DeliveryMessage, /^smtp;450 4\.2\.1/);

    // Not finished: status Queued, attachment content still there for the retry.
    assert.equal((await messageOf(s, id)).status, 'Queued');
    const att = () => s.ctx.db.selectFrom('message_attachments').select('content').where('message_id', '=', id).executeTakeFirstOrThrow();
    assert.notEqual((await att()).content, null);
    const [job] = await jobsOf(s);
    assert.equal(job.attempts, 1);
    const due = job.run_at - s.clock.now();
    assert.ok(due > 55_000 && due <= MIN, `first retry after 1 min, got ${due} ms`);

    // Not due yet: nothing happens.
    await s.drain();
    assert.equal(sink.messages.length, before + 1);

    sink.rcptReplies.delete('later@dest.example');
    s.clock.advance(MIN);
    await s.drain();
    assert.deepEqual(sink.messages.slice(before).map((m) => m.to[0]), ['ok@dest.example', 'later@dest.example']);
    r = await byEmail();
    assert.equal(r['later@dest.example'].status, 'Sent');
    assert.equal((await messageOf(s, id)).status, 'Sent', 'Sent once every recipient is settled, even with a bounce among them');
    assert.equal((await att()).content, null, 'attachment content dropped once settled');
    assert.equal((await jobsOf(s)).length, 0);
  });

  it('gives up at the maximum age as a SoftBounce, not a minute earlier', async () => {
    sink.rcptReplies.set('stuck@dest.example', { code: 451, message: '4.3.0 Temporary local problem' });
    const id = await send(s, { From: FROM, To: 'stuck@dest.example', Subject: 'stuck', TextBody: 'x' });
    const received = (await messageOf(s, id)).received_at;
    s.clock.freeze();
    await s.drain();
    // Retries follow the schedule (1, 5, 15, 30 min, 1 h, 2 h, then 4 h) until just before the deadline.
    const runs: number[] = [];
    for (;;) {
      const [job] = await jobsOf(s);
      if (job.run_at >= received + 72 * HOUR) break;
      runs.push(job.run_at - s.clock.now());
      s.clock.advance(job.run_at - s.clock.now());
      await s.drain();
    }
    assert.deepEqual(runs.slice(0, 7), [MIN, 5 * MIN, 15 * MIN, 30 * MIN, HOUR, 2 * HOUR, 4 * HOUR]);
    const [last] = await jobsOf(s);
    assert.equal(last.run_at, received + 72 * HOUR, 'the last retry is pulled in to the deadline');
    assert.equal((await recipientsOf(s, id))[0].status, 'Transient');
    s.clock.advance(last.run_at - s.clock.now());
    await s.drain();
    const [rcpt] = await recipientsOf(s, id);
    assert.equal(rcpt.status, 'Bounced');
    const bounce = await s.ctx.db.selectFrom('bounces').selectAll().where('message_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(bounce.type, 'SoftBounce');
    assert.equal(bounce.inactive, 0, 'a soft bounce does not suppress');
    assert.match(bounce.details, /Gave up after 72 hours.*451 4\.3\.0/);
    assert.equal((await messageOf(s, id)).status, 'Sent');
    assert.equal((await jobsOf(s)).length, 0);
    const transients = (await eventsOf(s, id)).filter((e) => e.type === 'Transient');
    assert.equal(transients.length, runs.length + 1);
    s.clock.unfreeze();
  });

  it('treats a refused message (DATA 5xx), a null MX and a nonexistent domain as bounces; 503 as a delay', async () => {
    sink.dataReplies.push({ code: 554, message: '5.7.1 Message rejected as spam' });
    const a = await send(s, { From: FROM, To: 'spamcheck@dest.example', Subject: 'x', TextBody: 'x' });
    const b = await send(s, { From: FROM, To: 'who@nullmx.example', Subject: 'x', TextBody: 'x' });
    const c = await send(s, { From: FROM, To: 'who@nxdomain.example', Subject: 'x', TextBody: 'x' });
    sink.rcptReplies.set('seq@dest.example', { code: 503, message: '5.5.1 Bad sequence of commands' });
    const d = await send(s, { From: FROM, To: 'seq@dest.example', Subject: 'x', TextBody: 'x' });
    await s.drain();
    const typeOf = async (id: string) => (await s.ctx.db.selectFrom('bounces').select('type').where('message_id', '=', id).executeTakeFirst())?.type;
    assert.equal(await typeOf(a), 'SpamNotification');
    assert.equal(await typeOf(b), 'HardBounce');
    const nullMx = await s.ctx.db.selectFrom('bounces').select('details').where('message_id', '=', b).executeTakeFirstOrThrow();
    assert.match(nullMx.details, /5\.1\.10/);
    assert.equal(await typeOf(c), 'HardBounce');
    assert.equal(await typeOf(d), undefined);
    assert.equal((await recipientsOf(s, d))[0].status, 'Transient');
    sink.rcptReplies.delete('seq@dest.example');
  });
});
