import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sendInbound, startInbound, type InboundSetup } from './inbound-helpers.js';

describe('inbound processing: SMTP to the inbound address, JSON to the application', () => {
  let t: InboundSetup;
  before(async () => {
    t = await startInbound();
  });
  after(() => t.close());

  const posted = (subject: string) => t.app.requests.filter((r) => r.json?.Subject === subject);
  const details = async (id: string) => (await t.s.request('GET', `/messages/inbound/${id}/details`)).body;
  const idOf = (answer: { response: string }) => /as ([0-9a-f-]{36})/.exec(answer.response)![1];

  it('posts the hosted service\'s inbound JSON with attachments, authentication results and recipients', async () => {
    const pdf = Buffer.from('%PDF-1.4 invoice 42\n'.repeat(50));
    const answer = await sendInbound(t.s, {
      to: `"Support" <${t.address}>`,
      cc: 'Ops Team <ops@acme.example>',
      replyTo: 'jane.replies@customer.example',
      subject: 'Invoice attached',
      text: 'Here is the invoice.\n\nOn Mon, 3 Jun 2024 at 10:00, Support <support@acme.example> wrote:\n> Please send the invoice.\n',
      html: '<p>Here is the invoice.</p>',
      headers: { 'X-PM-Tag': 'billing' },
      attachments: [
        { filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]), contentType: 'image/png', cid: 'logo@acme' },
      ],
    });
    assert.ok(answer.ok, answer.response);
    assert.match(answer.response, /^250/);
    await t.s.drain();
    const [req] = posted('Invoice attached');
    assert.ok(req, 'the application received the message');
    assert.equal(req.path, '/inbound');
    const j = req.json;
    assert.equal(j.From, 'jane@customer.example');
    assert.equal(j.FromName, 'Jane Customer');
    assert.deepEqual(j.FromFull, { Email: 'jane@customer.example', Name: 'Jane Customer', MailboxHash: '' });
    assert.equal(j.To, `"Support" <${t.address}>`);
    assert.deepEqual(j.ToFull, [{ Email: t.address, Name: 'Support', MailboxHash: '' }]);
    assert.deepEqual(j.CcFull, [{ Email: 'ops@acme.example', Name: 'Ops Team', MailboxHash: '' }]);
    assert.equal(j.ReplyTo, 'jane.replies@customer.example');
    assert.equal(j.OriginalRecipient, t.address);
    assert.equal(j.MailboxHash, '');
    assert.equal(j.Tag, 'billing');
    assert.equal(j.MessageStream, 'inbound');
    assert.equal(j.HtmlBody.trim(), '<p>Here is the invoice.</p>');
    assert.equal(j.StrippedTextReply, 'Here is the invoice.');
    assert.match(j.Date, /\d{4} \d\d:\d\d:\d\d/);
    assert.equal(j.MessageID, idOf(answer));
    assert.equal(j.RawEmail, undefined, 'RawEmail only when the server enables it');
    const pdfOut = j.Attachments.find((a: any) => a.Name === 'invoice.pdf');
    assert.equal(Buffer.from(pdfOut.Content, 'base64').toString(), pdf.toString());
    assert.equal(pdfOut.ContentType, 'application/pdf');
    assert.equal(pdfOut.ContentLength, pdf.length);
    const logo = j.Attachments.find((a: any) => a.Name === 'logo.png');
    assert.match(logo.ContentID, /logo@acme/);
    const header = (name: string) => j.Headers.find((h: any) => h.Name.toLowerCase() === name.toLowerCase())?.Value ?? '';
    assert.match(header('Authentication-Results'), /spf=pass/);
    assert.match(header('Authentication-Results'), /dkim=none/);
    assert.match(header('Authentication-Results'), /dmarc=/);
    assert.match(header('Received-SPF'), /^pass/);
    assert.equal(header('X-Spam-Status'), '', 'no spam score without a spamd');

    const d = await details(j.MessageID);
    assert.equal(d.Status, 'Processed');
    assert.equal(d.BlockedReason, '');
    assert.equal(d.TextBody.startsWith('Here is the invoice.'), true);
    // The application has it: the attachment content is no longer kept, its description is.
    assert.equal(d.Attachments.find((a: any) => a.Name === 'invoice.pdf').Content, '');
    assert.equal(d.Attachments.find((a: any) => a.Name === 'invoice.pdf').ContentLength, pdf.length);
    assert.equal(d.HookAttempts.length, 1);
    assert.equal(d.HookAttempts[0].ResponseCode, 200);
  });

  it('verifies a DKIM-signed message and its DMARC policy (RFC 6376, RFC 7489)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    // A domain of its own: the listener caches DNS answers (also "no record") for a minute.
    t.dns.set('signer.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
    t.dns.set('sel1._domainkey.signer.example', [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${p}` }]);
    t.dns.set('_dmarc.signer.example', [{ type: 'TXT', data: 'v=DMARC1; p=reject' }]);
    const signed = await sendInbound(t.s, {
      from: '"Ann Signer" <ann@signer.example>',
      to: t.address,
      subject: 'Signed reply',
      dkim: { domainName: 'signer.example', keySelector: 'sel1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    });
    assert.ok(signed.ok, signed.response);
    await t.s.drain();
    const [req] = posted('Signed reply');
    const results = req.json.Headers.find((h: any) => h.Name === 'Authentication-Results').Value;
    assert.match(results, /dkim=pass header\.i=@signer\.example header\.s=sel1/);
    assert.match(results, /spf=pass/);
    assert.match(results, /dmarc=pass/);
    // A From that neither the envelope (SPF) nor a signature aligns with fails DMARC; the result is
    // recorded and the message still reaches the application (what to do with it is its choice).
    t.dns.set('_dmarc.forged.example', [{ type: 'TXT', data: 'v=DMARC1; p=reject' }]);
    const spoof = await sendInbound(t.s, { from: 'boss@forged.example', to: t.address, subject: 'Spoofed' }, t.address);
    assert.ok(spoof.ok);
    await t.s.drain();
    const spoofed = posted('Spoofed')[0].json.Headers.find((h: any) => h.Name === 'Authentication-Results').Value;
    assert.match(spoofed, /dmarc=fail/);
  });

  it('passes plus-addressing through as MailboxHash and filters on it', async () => {
    const to = t.address.replace('@', '+ticket-4711@');
    const answer = await sendInbound(t.s, { to, subject: 'Re: ticket 4711' });
    assert.ok(answer.ok, answer.response);
    await t.s.drain();
    const [req] = posted('Re: ticket 4711');
    assert.equal(req.json.MailboxHash, 'ticket-4711');
    assert.equal(req.json.OriginalRecipient, to);
    assert.equal(req.json.ToFull[0].MailboxHash, 'ticket-4711');
    const list = await t.s.request('GET', '/messages/inbound?count=10&offset=0&mailboxhash=ticket-4711');
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.TotalCount, 1);
    assert.equal(list.body.InboundMessages[0].MailboxHash, 'ticket-4711');
    assert.equal(list.body.InboundMessages[0].Status, 'Processed');
  });

  it('takes mail for the server\'s InboundDomain (a forwarded custom domain)', async () => {
    const put = await t.s.request('PUT', '/server', { body: { InboundDomain: 'replies.acme.example' } });
    assert.equal(put.status, 200, put.text);
    const answer = await sendInbound(t.s, { to: 'support+order-9@replies.acme.example', subject: 'Via our own domain' });
    assert.ok(answer.ok, answer.response);
    await t.s.drain();
    const [req] = posted('Via our own domain');
    assert.equal(req.json.OriginalRecipient, 'support+order-9@replies.acme.example');
    assert.equal(req.json.MailboxHash, 'order-9');
    const other = await sendInbound(t.s, { to: 'someone@elsewhere.example', subject: 'Not ours' });
    assert.equal(other.ok, false);
    assert.equal(other.code, 550);
  });

  it('refuses an unknown inbound hash at RCPT time', async () => {
    const answer = await sendInbound(t.s, { to: `0000ffff@${t.s.config.inboundDomain}` });
    assert.equal(answer.ok, false);
    assert.equal(answer.code, 550);
  });

  it('keeps the message while the application is down and posts it on the next retry', async () => {
    await t.app.down();
    try {
      const answer = await sendInbound(t.s, { to: t.address, subject: 'While you were down' });
      assert.ok(answer.ok, answer.response);
      await t.s.drain();
      const id = idOf(answer);
      assert.equal((await details(id)).Status, 'Scheduled');
      assert.equal((await t.s.request('GET', '/messages/inbound?count=10&offset=0&status=scheduled')).body.TotalCount, 1);
    } finally {
      await t.app.up();
    }
    t.s.clock.advance(61_000);
    await t.s.drain();
    const [req] = posted('While you were down');
    assert.ok(req, 'posted after the receiver came back');
    const d = await details(req.json.MessageID);
    assert.equal(d.Status, 'Processed');
    assert.deepEqual(
      d.HookAttempts.map((a: any) => a.Outcome),
      ['retrying', 'delivered'],
    );
  });

  it('stops at a 403 (Failed) and PUT .../retry posts it again', async () => {
    t.app.respond((r) => (r.json?.Subject === 'Refused once' ? 403 : 200));
    const answer = await sendInbound(t.s, { to: t.address, subject: 'Refused once' });
    assert.ok(answer.ok);
    await t.s.drain();
    const id = idOf(answer);
    t.s.clock.advance(3_600_000);
    await t.s.drain();
    assert.equal(posted('Refused once').length, 1, 'no retry after a 403');
    const d = await details(id);
    assert.equal(d.Status, 'Failed');
    assert.equal(d.HookAttempts[0].ResponseCode, 403);
    // Only failed messages can be retried.
    assert.equal((await t.s.request('PUT', `/messages/inbound/${id}/bypass`)).status, 422);

    t.app.respond(200);
    const retry = await t.s.request('PUT', `/messages/inbound/${id}/retry`);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.ErrorCode, 0);
    await t.s.drain();
    assert.equal(posted('Refused once').length, 2);
    assert.equal((await details(id)).Status, 'Processed');
  });

  it('stores mail matching an inbound rule as Blocked, and bypass delivers it', async () => {
    const rule = await t.s.request('POST', '/triggers/inboundRules', { body: { Rule: 'Spammy.Example' } });
    assert.equal(rule.status, 200, rule.text);
    assert.equal(rule.body.Rule, 'spammy.example');
    const byAddress = await t.s.request('POST', '/triggers/inboundRules', { body: { Rule: 'pest@customer.example' } });
    assert.equal(byAddress.status, 200, byAddress.text);
    assert.equal((await t.s.request('POST', '/triggers/inboundRules', { body: { Rule: 'not a rule' } })).status, 422);
    const list = await t.s.request('GET', '/triggers/inboundRules?count=10&offset=0');
    assert.deepEqual(
      list.body.InboundRules.map((r: any) => r.Rule),
      ['spammy.example', 'pest@customer.example'],
    );

    const answer = await sendInbound(t.s, { from: 'offers@spammy.example', to: t.address, subject: 'Cheap offers' });
    assert.ok(answer.ok, answer.response);
    await t.s.drain();
    assert.equal(posted('Cheap offers').length, 0, 'blocked mail is not posted');
    const id = idOf(answer);
    const d = await details(id);
    assert.equal(d.Status, 'Blocked');
    assert.match(d.BlockedReason, /spammy\.example/);
    assert.equal((await t.s.request('GET', '/messages/inbound?count=10&offset=0&status=blocked')).body.TotalCount, 1);

    const bypass = await t.s.request('PUT', `/messages/inbound/${id}/bypass`);
    assert.equal(bypass.status, 200, bypass.text);
    await t.s.drain();
    assert.equal(posted('Cheap offers').length, 1);
    assert.equal((await details(id)).Status, 'Processed');

    const del = await t.s.request('DELETE', `/triggers/inboundRules/${rule.body.ID}`);
    assert.equal(del.status, 200, del.text);
    assert.equal((await t.s.request('DELETE', `/triggers/inboundRules/${rule.body.ID}`)).status, 422);
    const again = await sendInbound(t.s, { from: 'offers@spammy.example', to: t.address, subject: 'Cheap offers again' });
    assert.ok(again.ok);
    await t.s.drain();
    assert.equal(posted('Cheap offers again').length, 1, 'no longer blocked once the rule is gone');
  });

  it('adds RawEmail when the server enables it, and isolates servers', async () => {
    await t.s.request('PUT', '/server', { body: { RawEmailEnabled: true } });
    const answer = await sendInbound(t.s, { to: t.address, subject: 'With the source' });
    assert.ok(answer.ok);
    await t.s.drain();
    const [req] = posted('With the source');
    assert.match(req.json.RawEmail, /Subject: With the source/);
    assert.match(req.json.RawEmail, /Authentication-Results:/);
    await t.s.request('PUT', '/server', { body: { RawEmailEnabled: false } });

    const other = await t.s.request('POST', '/servers', { accountToken: t.s.accountToken, body: { Name: 'Other server' } });
    assert.equal(other.status, 200, other.text);
    const token = other.body.ApiTokens[0];
    const mine = await t.s.request('GET', '/messages/inbound?count=50&offset=0');
    assert.ok(mine.body.TotalCount >= 5);
    const theirs = await t.s.request('GET', '/messages/inbound?count=50&offset=0', { token });
    assert.equal(theirs.body.TotalCount, 0);
    assert.equal((await t.s.request('GET', `/messages/inbound/${req.json.MessageID}/details`, { token })).status, 422);
  });

  it('sends the HTTP basic auth given in InboundHookUrl', async () => {
    const put = await t.s.request('PUT', '/server', { body: { InboundHookUrl: `http://hook-user:p%40ss@127.0.0.1:${t.app.port}/inbound` } });
    assert.equal(put.status, 200, put.text);
    const answer = await sendInbound(t.s, { to: t.address, subject: 'With credentials' });
    assert.ok(answer.ok);
    await t.s.drain();
    const [req] = posted('With credentials');
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('hook-user:p@ss').toString('base64')}`);
    assert.equal(req.headers['x-mailroom-inbound-id'], req.json.MessageID);
    await t.s.request('PUT', '/server', { body: { InboundHookUrl: `${t.app.url}/inbound` } });
  });

  it('searches by recipient, sender, subject and date', async () => {
    const q = (s: string) => t.s.request('GET', `/messages/inbound?count=50&offset=0&${s}`).then((r) => r.body.TotalCount);
    assert.equal(await q('subject=invoice%20ATTACHED'), 1);
    assert.equal(await q('fromemail=offers@spammy.example'), 2);
    assert.equal(await q('recipient=ops@acme.example'), 1);
    assert.equal(await q('tag=billing'), 1);
    assert.equal(await q('todate=2000-01-01'), 0);
    assert.equal((await t.s.request('GET', '/messages/inbound?count=50&offset=0&status=bogus')).status, 422);
    const stats = await t.s.request('GET', '/stats/inbound');
    assert.equal(stats.status, 200, stats.text);
    assert.equal(stats.body.Total, await q(''));
    assert.equal(stats.body.Blocked, 0, 'the blocked message was bypassed');
    assert.ok(stats.body.Processed >= 9);
    assert.equal(stats.body.Processed + stats.body.Failed + stats.body.Queued + stats.body.Scheduled + stats.body.Blocked, stats.body.Total);
    const spec = await t.s.request('GET', '/openapi.json', { token: null });
    assert.ok(spec.body.paths['/messages/inbound'], 'the OpenAPI document lists inbound');
    assert.ok(spec.body.paths['/triggers/inboundrules']);
  });
});
