// The console's Bulk page over real HTTP (issue 25): a bulk request's progress counted in messages (compiled,
// sent, delivered, bounced, left out) as the workers compile and deliver it to a real SMTP sink, the sender's
// values inert, its messages paged 50 at a time each once, and requests of another server out of reach.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { finishBulkRequests } from '../../../src/domain/bulk/status.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { ADMIN, addUsers, ConsoleClient, VIEWER } from './helpers.js';

const FROM = 'news@acme.example';
const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
const label = (html: string) => /aria-label="([^"]*compiled[^"]*)"/.exec(html)?.[1];

describe('console: bulk requests', () => {
  let s: TestService;
  let sink: SmtpSink;
  let c: ConsoleClient;
  let id = '';
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    c = new ConsoleClient(s);
    await c.signIn(ADMIN);
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('lists a request with its progress, from accepted to delivered with a bounce, the sender’s values inert', async () => {
    await s.request('POST', '/message-streams/broadcast/suppressions', { body: { Suppressions: [{ EmailAddress: 'r0@dest.example' }] } });
    const res = await s.request('POST', '/email/bulk', {
      body: {
        From: FROM,
        Subject: `${HOSTILE} {{name}}`,
        TextBody: 'Hi {{name}}',
        Tag: HOSTILE,
        Messages: Array.from({ length: 60 }, (_, i) => ({ To: `r${i}@dest.example`, TemplateModel: { name: i === 1 ? HOSTILE : `R${i}` } })),
      },
    });
    assert.equal(res.status, 200, res.text);
    id = res.body.Id;
    const waiting = await c.get(`/console/s/${s.serverId}/bulk`);
    assert.equal(waiting.status, 200);
    assert.match(waiting.text, /status-accepted">Accepted</);
    assert.equal(label(waiting.text), '0 of 60 compiled, 0 sent, 0 delivered, 0 bounced');

    await s.drain();
    const first = await s.ctx.db.selectFrom('messages').innerJoin('message_recipients', 'message_recipients.message_id', 'messages.id').select(['messages.id', 'message_recipients.id as rid']).where('messages.bulk_id', '=', id).where('message_recipients.email', '=', 'r5@dest.example').executeTakeFirstOrThrow();
    // A bounce that comes back after the delivery (a DSN): the message counts as bounced, not delivered.
    await s.ctx.db.transaction().execute((trx) => recordBounce(trx, s.ctx, { messageId: first.id, email: 'r5@dest.example', type: 'HardBounce', details: 'smtp;550 5.1.1 unknown', bouncedAt: s.clock.now(), dump: null, recipientId: first.rid }));
    const done = await c.get(`/console/s/${s.serverId}/bulk`);
    assert.equal(label(done.text), '59 of 60 compiled, 59 sent, 58 delivered, 1 bounced, 1 left out');
    assert.equal(sink.messages.length, 59);
    // Completed (the periodic task): the same figures, read within the request's own time window.
    s.clock.advance(1000);
    await finishBulkRequests(s.ctx, s.clock.now());
    const completed = await c.get(`/console/s/${s.serverId}/bulk`);
    assert.match(completed.text, /status-completed">Completed</);
    assert.equal(label(completed.text), label(done.text));
    for (const page of [done, await c.get(`/console/s/${s.serverId}/bulk/${id}`)]) {
      assert.doesNotMatch(page.text, /<script>alert|<img src=x/);
      assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      for (const m of page.text.matchAll(/<script\b[^>]*>/g)) assert.match(m[0], /src="\/console\/assets\/[\w.]+\.js"/);
    }
  });

  it('pages through the request’s messages, each once, with their recipients and a bounced one marked', async () => {
    const one = await c.get(`/console/s/${s.serverId}/bulk/${id}`);
    assert.equal(one.status, 200);
    assert.match(one.text, /59 compiled, 1 skipped \(inactive\), 0 not compiled/);
    const ids = (text: string) => [...text.matchAll(/href="\/console\/s\/\d+\/messages\/([0-9a-f-]+)"/g)].map((m) => m[1]);
    const firstPage = ids(one.text);
    assert.equal(firstPage.length, 50);
    const next = /href="([^"]+)" rel="next">Next messages/.exec(one.text)?.[1];
    assert.ok(next);
    const two = await c.get(next!.replace(/&amp;/g, '&'));
    assert.equal(ids(two.text).length, 9);
    assert.doesNotMatch(two.text, /rel="next"/);
    assert.equal(new Set([...firstPage, ...ids(two.text)]).size, 59);
    assert.match(one.text + two.text, /r5@dest\.example \(bounced\)/);
    assert.doesNotMatch(one.text + two.text, /r0@dest\.example/);
  });

  it('shows the page to a viewer, and no request of another server or a made-up id', async () => {
    const viewer = new ConsoleClient(s);
    await viewer.signIn(VIEWER);
    assert.equal((await viewer.get(`/console/s/${s.serverId}/bulk/${id}`)).status, 200);
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Other' } });
    assert.equal(other.status, 200, other.text);
    assert.equal((await c.get(`/console/s/${other.body.ID}/bulk/${id}`)).status, 404);
    assert.doesNotMatch((await c.get(`/console/s/${other.body.ID}/bulk`)).text, new RegExp(id));
    assert.equal((await c.get(`/console/s/${s.serverId}/bulk/0199a0a0-0000-7000-8000-000000000000`)).status, 404);
    assert.equal((await c.get(`/console/s/${s.serverId}/bulk/${encodeURIComponent('<x>')}`)).status, 404);
  });
});
