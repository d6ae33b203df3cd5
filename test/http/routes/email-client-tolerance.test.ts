// What the official clients send that mailroom used to refuse (docs/reference/api-conventions.md, "Requests
// and responses"; docs/reference/sending.md, "Custom headers"): keys in any case, "" for an unset choice,
// the headers a mail library always writes, X-PM-KeepID, the hosted test token. Checked through what a client
// notices: the answer, and the message's source (GET .../dump, composed as delivery writes it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

describe('sending as the official clients do', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(() => s.close());

  const source = async (id: string): Promise<string> => {
    const d = await s.request('GET', `/messages/outbound/${id}/dump`);
    assert.equal(d.status, 200, d.text);
    return d.body.Body as string;
  };
  /** The header block of a MIME source (up to the first blank line). */
  const head = (mime: string) => mime.slice(0, mime.indexOf('\r\n\r\n'));

  it('reads body keys in any case, at every depth, and keeps the user\'s own keys', async () => {
    const r = await s.request('POST', '/email', {
      body: {
        from: 'sender@example.com',
        TO: 'rcpt@example.net',
        subject: 'camel',
        htmlBody: '<p>hi</p>',
        headers: [{ name: 'X-Camel', value: 'yes' }],
        metadata: { customerId: '42' },
        attachments: [{ name: 'a.txt', content: Buffer.from('hello').toString('base64'), contentType: 'text/plain', contentId: 'a.txt' }],
        trackLinks: '',
        messageStream: 'outbound',
      },
    });
    assert.equal(r.status, 200, r.text);
    const d = await s.request('GET', `/messages/outbound/${r.body.MessageID}/details`);
    assert.equal(d.body.Subject, 'camel');
    assert.deepEqual(d.body.Metadata, { customerId: '42' }, 'Metadata keys keep their case');
    assert.deepEqual(d.body.Attachments, ['a.txt']);
    const mime = await source(r.body.MessageID);
    assert.match(head(mime), /^X-Camel: yes$/m);
    // A ContentID the HTML does not refer to (the PHP client gives every file one) stays an attachment.
    assert.match(mime, /Content-Disposition: attachment;\s+filename="?a\.txt/);
  });

  it('reads the Messages of a templated batch and of a bulk request in any case', async () => {
    const t = await s.request('POST', '/templates', { body: { name: 'T', subject: 'Hi {{name}}', textBody: 'Hello {{name}}', alias: 'tolerance' } });
    assert.equal(t.status, 200, t.text);
    const b = await s.request('POST', '/email/batchWithTemplates', {
      body: { messages: [{ from: 'sender@example.com', to: 'a@example.net', templateAlias: 'tolerance', templateModel: { name: 'Ann' }, trackLinks: '' }] },
    });
    assert.equal(b.status, 200, b.text);
    assert.equal(b.body[0].ErrorCode, 0, b.text);
    const bulk = await s.request('POST', '/email/bulk', {
      body: { from: 'sender@example.com', subject: 's', textBody: 't', trackLinks: '', messages: [{ to: 'b@example.net', metadata: { Key: 'v' } }] },
    });
    assert.equal(bulk.status, 200, bulk.text);
  });

  it('accepts the headers a mail library writes and replaces them with its own', async () => {
    // As the Ruby gem copies a Mail::Message's header into Headers (ActionMailer's path).
    const gem = [
      { Name: 'Date', Value: 'Sat, 28 Nov 2026 09:00:00 +0000' },
      { Name: 'Message-ID', Value: '<5f1a@rails.example.mail>' },
      { Name: 'Mime-Version', Value: '1.0' },
      { Name: 'Content-Transfer-Encoding', Value: '7bit' },
      { Name: 'X-Rails', Value: 'kept' },
    ];
    const r = await s.request('POST', '/email', { body: { From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't', Headers: gem } });
    assert.equal(r.status, 200, r.text);
    const h = head(await source(r.body.MessageID));
    assert.match(h, new RegExp(`^Message-ID: <${r.body.MessageID}@`, 'm'), "mailroom's Message-ID replaces the given one");
    assert.doesNotMatch(h, /rails\.example\.mail|09:00:00/);
    assert.equal(h.match(/^MIME-Version:/gim)?.length, 1, 'one MIME-Version, mailroom\'s');
    assert.match(h, /^X-Rails: kept$/m);

    const batch = await s.request('POST', '/email/batch', { body: [1, 2].map(() => ({ From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't', Headers: gem })) });
    assert.deepEqual(batch.body.map((x: any) => x.ErrorCode), [0, 0], batch.text);
  });

  it('keeps the given Message-ID with X-PM-KeepID: true, and does not send that header on', async () => {
    const headers = [
      { Name: 'Message-ID', Value: '<ticket-77.reply-3@helpdesk.example>' },
      { Name: 'X-PM-KeepID', Value: 'true' },
    ];
    const r = await s.request('POST', '/email', { body: { From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't', Headers: headers } });
    assert.equal(r.status, 200, r.text);
    const h = head(await source(r.body.MessageID));
    assert.match(h, /^Message-ID: <ticket-77\.reply-3@helpdesk\.example>$/m);
    assert.equal(h.match(/^Message-ID:/gim)?.length, 1);
    assert.doesNotMatch(h, /X-PM-KeepID/i);
    // Without brackets, as some libraries write it: kept in the msg-id form.
    const bare = await s.request('POST', '/email', {
      body: { From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't', Headers: [{ Name: 'message-id', Value: 'abc@app.example' }, { Name: 'x-pm-keepid', Value: 'TRUE' }] },
    });
    assert.match(head(await source(bare.body.MessageID)), /^Message-ID: <abc@app\.example>$/m);
    for (const bad of ['no-at-sign', '<a b@c>', '<a@b@c>', '<@x>']) {
      const refused = await s.request('POST', '/email', {
        body: { From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't', Headers: [{ Name: 'Message-ID', Value: bad }, { Name: 'X-PM-KeepID', Value: 'true' }] },
      });
      assert.equal(refused.status, 422, bad);
      assert.equal(refused.body.ErrorCode, 300);
      assert.match(refused.body.Message, /Message-ID/);
    }
  });

  it('takes POSTMARK_API_TEST as the test token', async () => {
    const r = await s.request('POST', '/email', { token: 'POSTMARK_API_TEST', body: { From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.Message, 'Test job accepted');
  });

  it('answers an unknown stream in the hosted service\'s words (1235)', async () => {
    const r = await s.request('POST', '/email', { body: { From: 'sender@example.com', To: 'r@example.net', Subject: 's', TextBody: 't', MessageStream: 'unknown-stream' } });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, { ErrorCode: 1235, Message: "The stream provided: 'unknown-stream' does not exist on this server." });
  });
});
