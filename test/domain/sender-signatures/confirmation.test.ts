import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const PUBLIC = 'https://mailroom.example.test';

describe('Sender signature confirmation, end to end', () => {
  let s: TestService;
  let sink: SmtpSink;
  const A = (body?: unknown) => ({ accountToken: s.accountToken, body });

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_PUBLIC_URL: PUBLIC } });
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  /** The confirmation link of the last mail the sink received for `to`, re-based onto the test listener. */
  const linkFor = async (to: string) => {
    const mail = sink.messages.filter((m) => m.to.includes(to)).at(-1);
    assert.ok(mail, `a confirmation email reached ${to}`);
    const parsed = await PostalMime.parse(mail.raw);
    const m = new RegExp(`${PUBLIC}(/senders/confirm/[A-Za-z0-9_.-]+)`).exec(parsed.text ?? '');
    assert.ok(m, 'the mail carries the link under MAILROOM_PUBLIC_URL');
    assert.ok(parsed.html?.includes(`${PUBLIC}${m[1]}`), 'the HTML part links to it too');
    return { path: m[1], parsed };
  };

  it('mails a signed link with the personal note; following it confirms; sending is then accepted', async () => {
    const sig = (await s.request('POST', '/senders', A({ FromEmail: 'owner@confirm.test', Name: 'Owner', ConfirmationPersonalNote: 'Please <confirm> me & go' }))).body;
    assert.equal(sig.Confirmed, false);
    const refused = await s.request('POST', '/email', { body: { From: 'owner@confirm.test', To: 'x@dest.test', Subject: 's', TextBody: 't' } });
    assert.equal(refused.status, 422, 'an unconfirmed signature may not send');

    await s.drain();
    const { path, parsed } = await linkFor('owner@confirm.test');
    assert.match(parsed.text ?? '', /Please <confirm> me & go/);
    assert.match(parsed.html ?? '', /Please &#60;confirm&#62; me &#38; go/, 'the note is escaped in HTML');
    assert.match(parsed.subject ?? '', /owner@confirm\.test/);

    // Opening the link (what a mail gateway's pre-fetch does) shows a page and confirms nothing.
    const page = await fetch(s.url + path);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    const shown = await page.text();
    assert.match(shown, /<form method="post"><button type="submit">Confirm this sender signature<\/button><\/form>/);
    assert.match(shown, /Owner &lt;<strong>owner@confirm\.test<\/strong>&gt;/);
    assert.equal((await fetch(s.url + path, { method: 'HEAD' })).status, 200);
    assert.equal((await s.request('GET', `/senders/${sig.ID}`, A())).body.Confirmed, false, 'GET confirmed nothing');

    // The page's button (an empty form post) confirms.
    const post = () => fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    const done = await post();
    assert.equal(done.status, 200);
    assert.match(await done.text(), /owner@confirm\.test<\/strong> is now confirmed/);
    assert.equal((await s.request('GET', `/senders/${sig.ID}`, A())).body.Confirmed, true);
    // Following it again is harmless.
    assert.match(await (await post()).text(), /already confirmed/);
    assert.match(await (await fetch(s.url + path)).text(), /already confirmed/);
    assert.equal((await s.request('POST', `/senders/${sig.ID}/resend`, A())).body.ErrorCode, 506);

    const sent = await s.request('POST', '/email', { body: { From: 'Owner <owner@confirm.test>', To: 'x@dest.test', Subject: 's', TextBody: 't' } });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.ErrorCode, 0);
  });

  it('changes nothing for a forged, altered, expired or stale link', async () => {
    const sig = (await s.request('POST', '/senders', A({ FromEmail: 'wary@confirm.test', Name: 'Wary' }))).body;
    await s.drain();
    const { path } = await linkFor('wary@confirm.test');
    const token = path.split('/').pop()!;
    const [data, mac] = token.split('.');
    const forged = `${Buffer.from(`${sig.ID}.x.9999999999999`).toString('base64url')}.${mac}`;
    const flipped = `${data}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    for (const bad of [forged, flipped, `${data}.`, 'garbage', token.toUpperCase(), `${data}.${mac}x`]) {
      for (const method of ['GET', 'POST']) {
        const r = await fetch(`${s.url}/senders/confirm/${bad}`, { method });
        assert.equal(r.status, 400, bad);
        assert.match(await r.text(), /invalid or has expired/);
      }
    }
    assert.equal((await s.request('GET', `/senders/${sig.ID}`, A())).body.Confirmed, false);

    // Eight days later the link has expired; a resent one works.
    s.clock.advance(8 * 24 * 60 * 60 * 1000);
    assert.equal((await fetch(s.url + path)).status, 400);
    assert.equal((await fetch(s.url + path, { method: 'POST' })).status, 400);
    assert.equal((await s.request('GET', `/senders/${sig.ID}`, A())).body.Confirmed, false);
    assert.equal((await s.request('POST', `/senders/${sig.ID}/resend`, A())).body.ErrorCode, 0);
    await s.drain();
    const fresh = await linkFor('wary@confirm.test');
    assert.notEqual(fresh.path, path);

    // A link for a deleted signature confirms nothing, not even a new signature for the same address.
    await s.request('DELETE', `/senders/${sig.ID}`, A());
    const again = (await s.request('POST', '/senders', A({ FromEmail: 'wary@confirm.test', Name: 'Wary' }))).body;
    assert.equal((await fetch(s.url + fresh.path, { method: 'POST' })).status, 400);
    assert.equal((await s.request('GET', `/senders/${again.ID}`, A())).body.Confirmed, false);
  });

  it('renders what the requester chose inert on the confirmation page', async () => {
    const Name = '<script>alert(1)</script>"\'&';
    const sig = (await s.request('POST', '/senders', A({ FromEmail: 'inert@confirm.test', Name }))).body;
    assert.equal(sig.Name, Name);
    await s.drain();
    const { path } = await linkFor('inert@confirm.test');
    const text = await (await fetch(s.url + path)).text();
    assert.ok(!text.includes('<script>'), 'no markup from the name');
    assert.match(text, /&#60;script&#62;alert\(1\)&#60;\/script&#62;&#34;&#39;&#38;/);
  });

  it('retries the confirmation email while the relay refuses temporarily', async () => {
    sink.rcptReplies.set('retry@confirm.test', { code: 451, message: '4.3.0 try later' });
    await s.request('POST', '/senders', A({ FromEmail: 'retry@confirm.test', Name: 'Retry' }));
    await s.drain();
    assert.equal(sink.messages.filter((m) => m.to.includes('retry@confirm.test')).length, 0);
    const job = await s.ctx.db.selectFrom('jobs').select(['attempts', 'last_error']).where('queue', '=', 'system-mail').executeTakeFirstOrThrow();
    assert.match(job.last_error ?? '', /451/);
    sink.rcptReplies.delete('retry@confirm.test');
    s.clock.advance(60 * 60_000);
    await s.drain();
    assert.equal(sink.messages.filter((m) => m.to.includes('retry@confirm.test')).length, 1);
    assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'system-mail').execute()).length, 0);
  });

  it('drops the confirmation email when the receiving server refuses it for good', async () => {
    sink.rcptReplies.set('nobody@confirm.test', { code: 550, message: '5.1.1 No such user' });
    await s.request('POST', '/senders', A({ FromEmail: 'nobody@confirm.test', Name: 'Nobody' }));
    await s.drain();
    assert.equal(sink.messages.filter((m) => m.to.includes('nobody@confirm.test')).length, 0);
    assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'system-mail').execute()).length, 0, 'not retried');
  });
});
