// Through MAILROOM_SMTP_RELAY, with the worker running as in production (issue 27): a relay that answers
// "451 4.7.1 Try again later" (the greylisting wording of several MTAs) to one recipient's RCPT TO defers
// that recipient alone, on its retry schedule; every other recipient, of the same domain or another, is
// delivered at once, and so are 300 messages queued behind it across a restart of the worker. The relay's
// own signal (a 421 at its greeting) still pauses all mail through it. Delivery is awaited by polling with a
// deadline; the retry schedule is reached by moving the injected clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { eventsOf, jobsOf, recipientsOf, send } from './helpers.js';

const FROM = 'sender@example.com';
const GREY = 'grey@a.example';
const GREYLISTED = { code: 451, message: '4.7.1 Try again later' };
const MIN = 60_000;
/** "At once": well within the 60 s pause a relay-wide throttle would impose, on a loaded machine. */
const AT_ONCE = { timeoutMs: 15_000 };

describe('through a relay, one recipient deferred at RCPT', () => {
  let s: TestService;
  let sink: SmtpSink;
  let greeting: { code: number; message: string } | null = null;
  let relay: string;
  before(async () => {
    sink = await startSmtpSink({
      options: {
        onConnect(_session, cb) {
          if (greeting) return cb(Object.assign(new Error(greeting.message), { responseCode: greeting.code }));
          cb();
        },
      },
    });
    relay = `relay:127.0.0.1:${sink.port}`;
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` }, startWorker: true });
    await addConfirmedSender(s, FROM);
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  const deliveredTo = (to: string) => sink.messages.filter((m) => m.to.includes(to)).length;
  const paceRows = () => s.ctx.db.selectFrom('destination_pace').selectAll().execute();
  const transientOf = async (id: string) => (await eventsOf(s, id)).filter((e) => e.type === 'Transient');

  it('defers that recipient alone; the others, of its domain and of others, are delivered at once', async () => {
    sink.rcptReplies.set(GREY, GREYLISTED);
    // The greylisted recipient and one of the same domain in one message (one job), then others.
    const first = await send(s, { From: FROM, To: `${GREY}, peer@a.example`, Subject: 'first', TextBody: 'hello' });
    await waitFor(async () => (await transientOf(first)).length === 1, { ...AT_ONCE, what: 'the Transient event of the greylisted recipient' });
    await waitFor(() => deliveredTo('peer@a.example') === 1, { ...AT_ONCE, what: 'the other recipient of the same message' });

    const sameDomain = await send(s, { From: FROM, To: 'other@a.example', Subject: 'same domain', TextBody: 'hello' });
    const otherDomain = await send(s, { From: FROM, To: 'x@b.example', Subject: 'other domain', TextBody: 'hello' });
    await waitFor(() => deliveredTo('other@a.example') === 1 && deliveredTo('x@b.example') === 1, { ...AT_ONCE, what: 'the next messages, delivered at once' });
    // Their outcomes commit just after the relay took them.
    const sent = async (id: string) => (await recipientsOf(s, id)).every((r) => r.status === 'Sent');
    await waitFor(async () => (await sent(sameDomain)) && (await sent(otherDomain)), { ...AT_ONCE, what: 'the outcomes committed' });
    assert.deepEqual(await paceRows(), [], 'nothing slowed: no pace state for the relay');

    // The greylisted recipient: its Transient event, and its retry on the schedule (1 min after a first try).
    const [event] = await transientOf(first);
    assert.equal(event.recipient, GREY);
    assert.equal(event.details.DeliveryMessage, 'smtp;451 4.7.1 Try again later');
    const status = async () => Object.fromEntries((await recipientsOf(s, first)).map((r) => [r.email, r.status]));
    assert.deepEqual(await status(), { [GREY]: 'Transient', 'peer@a.example': 'Sent' });
    const [job] = await waitFor(async () => ((await jobsOf(s)).length === 1 ? jobsOf(s) : null), AT_ONCE);
    assert.equal(job.attempts, 1);
    const due = job.run_at - s.clock.now();
    assert.ok(due > 50_000 && due <= MIN, `retried after the schedule's first step, in ${due} ms`);

    // The triplet is let through by the retry.
    sink.rcptReplies.delete(GREY);
    s.clock.advance(MIN);
    s.ctx.runner.wake();
    await waitFor(() => deliveredTo(GREY) === 1, { ...AT_ONCE, what: 'the retry of the greylisted recipient' });
    await waitFor(async () => (await status())[GREY] === 'Sent', AT_ONCE);
    await waitFor(async () => (await jobsOf(s)).length === 0, { ...AT_ONCE, what: 'no job left' });
  });

  it('300 messages queued behind a greylisted retry are delivered promptly after a restart', async (t) => {
    sink.rcptReplies.set(GREY, GREYLISTED);
    const grey = await send(s, { From: FROM, To: GREY, Subject: 'greylisted again', TextBody: 'hello' });
    await waitFor(async () => (await transientOf(grey)).length === 1, { ...AT_ONCE, what: 'the first deferral' });

    // The worker stops; meanwhile 300 messages are accepted and the greylisted retry comes due.
    await s.ctx.runner.stop();
    const domains = ['a.example', 'b.example', 'c.example'];
    const r = await s.request('POST', '/email/batch', {
      body: Array.from({ length: 300 }, (_, i) => ({ From: FROM, To: `n${i}@${domains[i % 3]}`, Subject: `queued ${i}`, TextBody: 'hello' })),
    });
    assert.equal(r.status, 200, r.text);
    assert.equal((await jobsOf(s)).length, 301);
    s.clock.advance(MIN);
    const before = sink.messages.length;
    const t0 = performance.now();
    s.ctx.runner.start();
    // 6-18 s on a loaded 2-core machine; a relay-wide throttle (a 60 s pause, then 1 a minute) would take hours.
    await waitFor(() => sink.messages.length - before >= 300, { timeoutMs: 60_000, intervalMs: 50, what: '300 queued messages delivered' });
    const took = performance.now() - t0;
    assert.equal(sink.messages.length - before, 300);
    // The retry met the greylisting again: a second Transient event and the schedule's next step, nothing else.
    await waitFor(async () => (await transientOf(grey)).length === 2, { ...AT_ONCE, what: 'the second deferral' });
    // The others' outcomes commit just after the relay took them: then only the greylisted job is left.
    const [job] = await waitFor(async () => ((await jobsOf(s)).length === 1 ? jobsOf(s) : null), { ...AT_ONCE, what: 'the outcomes committed' });
    assert.equal(job.attempts, 2);
    assert.ok(job.run_at - s.clock.now() > 4 * MIN, 'the next retry is 5 min later');
    assert.deepEqual(await paceRows(), []);
    t.diagnostic(`300 queued messages delivered through the relay in ${Math.round(took)} ms`);
    sink.rcptReplies.delete(GREY);
  });

  it("a 421 at the relay's greeting still pauses all mail through the relay, until the pause ends", async () => {
    // Clear the greylisted job of the test before.
    s.clock.advance(5 * MIN);
    s.ctx.runner.wake();
    await waitFor(async () => (await jobsOf(s)).length === 0, AT_ONCE);

    greeting = { code: 421, message: '4.7.0 Too many connections, try again later' };
    sink.cutConnections(); // the pooled sessions: each new one meets the greeting
    const before = sink.messages.length;
    const a = await send(s, { From: FROM, To: 'p@a.example', Subject: 'refused at the greeting', TextBody: 'hello' });
    const row = await waitFor(async () => (await paceRows()).find((p) => p.destination === relay), { ...AT_ONCE, what: 'the relay paused' });
    assert.match(row.last_reply, /^421 4\.7\.0 Too many connections/);
    assert.ok(row.paused_until > s.clock.now() + 50_000);
    await waitFor(async () => (await transientOf(a)).length === 1, AT_ONCE);

    // Mail for any domain now waits for the pause, not attempted (no event, no attempt counted).
    greeting = null;
    const b = await send(s, { From: FROM, To: 'q@d.example', Subject: 'another domain', TextBody: 'hello' });
    const held = await waitFor(async () => (await jobsOf(s)).find((j) => j.group_key === 'd.example' && j.run_at >= row.paused_until), { ...AT_ONCE, what: 'the held job' });
    assert.equal(held.attempts, 0);
    assert.deepEqual(await transientOf(b), []);
    assert.equal(sink.messages.length, before);

    // After the pause one goes, and the next at the halved rate (1 a minute: little was sent before).
    const both = () => deliveredTo('p@a.example') + deliveredTo('q@d.example');
    s.clock.advance(MIN + 1000);
    s.ctx.runner.wake();
    await waitFor(() => both() === 1, { ...AT_ONCE, what: 'the first delivery after the pause' });
    s.clock.advance(MIN);
    s.ctx.runner.wake();
    await waitFor(() => both() === 2, { ...AT_ONCE, what: 'the second a minute later' });
  });
});
