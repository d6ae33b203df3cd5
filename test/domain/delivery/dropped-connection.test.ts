// A peer that cuts the connection in the middle of one recipient's DATA: only that transaction fails. The
// other recipients of the same message are delivered in the same run over a fresh connection; the cut one
// is retried on the schedule and delivered once the peer stops dropping it. A peer that drops everything
// costs a bounded number of connections, not one per recipient.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { eventsOf, jobsOf, messageOf, recipientsOf, send } from './helpers.js';

const FROM = 'sender@example.com';
const MIN = 60_000;

describe('a connection cut during one transaction', () => {
  let s: TestService;
  let sink: SmtpSink;
  let connections = 0;
  before(async () => {
    sink = await startSmtpSink({
      options: {
        onConnect(_session, cb) {
          connections++;
          cb();
        },
      },
    });
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('fails only that recipient; the others are delivered in the same run, the cut one on retry', async () => {
    sink.dropData.add('b@dest.example');
    const id = await send(s, { From: FROM, To: 'a@dest.example, b@dest.example, c@dest.example, d@dest.example', Subject: 'cut', TextBody: 'hello' });
    const before = sink.messages.length;
    await s.drain();
    assert.equal(sink.dropped, 1);
    assert.deepEqual(sink.messages.slice(before).map((m) => m.to[0]), ['a@dest.example', 'c@dest.example', 'd@dest.example']);

    const status = async () => Object.fromEntries((await recipientsOf(s, id)).map((r) => [r.email, r.status]));
    assert.deepEqual(await status(), { 'a@dest.example': 'Sent', 'b@dest.example': 'Transient', 'c@dest.example': 'Sent', 'd@dest.example': 'Sent' });
    const transient = (await eventsOf(s, id)).filter((e) => e.type === 'Transient');
    assert.deepEqual(transient.map((e) => e.recipient), ['b@dest.example']);
    assert.match(transient[0].details.DeliveryMessage, /^smtp;451 4\.4\.2 /);
    assert.equal((await messageOf(s, id)).status, 'Queued');
    const [job] = await jobsOf(s);
    assert.equal(job.attempts, 1);

    // The peer stops dropping it: the retry after a minute delivers it and finishes the message.
    sink.dropData.clear();
    s.clock.advance(MIN);
    await s.drain();
    assert.deepEqual(sink.messages.slice(before).map((m) => m.to[0]), ['a@dest.example', 'c@dest.example', 'd@dest.example', 'b@dest.example']);
    assert.equal((await status())['b@dest.example'], 'Sent');
    assert.equal((await messageOf(s, id)).status, 'Sent');
    assert.equal((await jobsOf(s)).length, 0);
  });

  it('opens at most two fresh connections per run to a peer that cuts every transaction', async () => {
    const to = ['p', 'q', 'r', 's', 't', 'u'].map((x) => `${x}@dest.example`);
    for (const a of to) sink.dropData.add(a);
    const id = await send(s, { From: FROM, To: to.join(', '), Subject: 'all cut', TextBody: 'hello' });
    const before = sink.messages.length;
    const connectionsBefore = connections;
    await s.drain();
    assert.equal(sink.messages.length, before, 'nothing delivered');
    // The pooled session from the test before may be reused (then one more for the stale-session retry).
    assert.ok(connections - connectionsBefore <= 3, `${connections - connectionsBefore} connections`);
    const rcpts = await recipientsOf(s, id);
    assert.ok(rcpts.every((r) => r.status === 'Transient'), JSON.stringify(rcpts.map((r) => r.status)));
    const [job] = await jobsOf(s);
    assert.equal(job.attempts, 1, 'all on the normal retry schedule');
    sink.dropData.clear();
  });
});
