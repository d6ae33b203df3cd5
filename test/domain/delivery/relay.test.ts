// Delivery through MAILROOM_SMTP_RELAY to a real SMTP server on loopback: what arrives must parse back to
// what was sent, carry a DKIM signature an independent verifier accepts against the key published in
// (loopback) DNS, and a VERP envelope sender that decodes to the message and recipient.
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import PostalMime from 'postal-mime';
import { decodeVerp } from '../../../src/infra/mime/verp.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender, addVerifiedDomain, type InstalledKey } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { eventsOf, messageOf, recipientsOf, send } from './helpers.js';

const FROM = 'sender@example.com';

describe('delivery through a relay', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let key: InstalledKey;
  before(async () => {
    sink = await startSmtpSink({ auth: { user: 'relay-user', pass: 'relay pass' } });
    dns = await startDnsServer();
    s = await startService({
      env: { MAILROOM_SMTP_RELAY: `smtp://relay-user:relay%20pass@127.0.0.1:${sink.port}`, MAILROOM_RETURN_PATH_DOMAIN: 'pm-bounces.example.net' },
    });
    await addConfirmedSender(s, FROM);
    key = await addVerifiedDomain(s, 'example.com', 'mr1');
    dns.set('mr1._domainkey.example.com', [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${key.publicKeyBase64}` }]);
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
  });

  it('delivers a signed message that parses back to what was sent, one VERP transaction per recipient', async () => {
    const longLine = 'Ünïcödé '.repeat(400); // one 3,200-character line: must be folded by the encoding
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
    const pdf = Buffer.from('%PDF-1.4 binary \x00\x01\xff'.repeat(50), 'latin1');
    const id = await send(s, {
      From: '"Sender, Inc." <sender@example.com>',
      To: '"Doe, Jane" <jane@dest.example>',
      Cc: 'carol@dest.example',
      Bcc: 'dave@other.example',
      ReplyTo: 'replies@example.com',
      Subject: 'Order №42 — confirmed',
      TextBody: `Plain ${longLine}`,
      HtmlBody: `<p>${longLine}</p><img src="cid:logo@x">`,
      Headers: [{ Name: 'X-Order', Value: '42' }],
      Attachments: [
        { Name: 'invoice.pdf', Content: pdf.toString('base64'), ContentType: 'application/pdf' },
        { Name: 'logo.png', Content: png.toString('base64'), ContentType: 'image/png', ContentID: 'cid:logo@x' },
      ],
    });
    const before = sink.messages.length;
    await s.drain();
    const got = sink.messages.slice(before);
    assert.equal(got.length, 3, 'one transaction per recipient');
    assert.deepEqual(got.map((m) => m.to[0]).sort(), ['carol@dest.example', 'dave@other.example', 'jane@dest.example']);

    const recipients = await recipientsOf(s, id);
    for (const m of got) {
      assert.equal(m.to.length, 1);
      // Envelope sender: signed VERP on the return-path domain naming this message and this recipient.
      assert.match(m.from, /@pm-bounces\.example\.net$/);
      const v = decodeVerp(s.ctx.secrets, m.from);
      assert.ok(v, m.from);
      assert.equal(v.messageId, id);
      assert.equal(recipients.find((r) => r.id === v.recipientId)?.email, m.to[0]);
      // Lines stay within RFC 5322's 998-octet limit and the body is 7-bit.
      for (const line of m.raw.split('\r\n')) assert.ok(line.length <= 998, `line of ${line.length}`);
      assert.ok(!/[^\x00-\x7f]/.test(m.raw), '7-bit clean');
    }

    const raw = got.find((m) => m.to[0] === 'jane@dest.example')!.raw;
    const p = await PostalMime.parse(raw);
    assert.equal(p.subject, 'Order №42 — confirmed');
    assert.deepEqual(p.from, { name: 'Sender, Inc.', address: 'sender@example.com' });
    assert.deepEqual(p.to, [{ name: 'Doe, Jane', address: 'jane@dest.example' }]);
    assert.deepEqual(p.cc, [{ name: '', address: 'carol@dest.example' }]);
    assert.equal(p.bcc, undefined);
    assert.ok(!/^bcc:/im.test(raw) && !raw.includes('dave@other.example'), 'Bcc never in the headers');
    assert.deepEqual(p.replyTo, [{ name: '', address: 'replies@example.com' }]);
    assert.equal(p.messageId, `<${id}@pm-bounces.example.net>`);
    assert.equal(p.headers.find((h) => h.key === 'x-order')?.value, '42');
    assert.equal(p.text?.trim(), `Plain ${longLine}`.trim());
    assert.equal(p.html?.trim(), `<p>${longLine}</p><img src="cid:logo@x">`.trim());
    assert.equal(p.attachments.length, 2);
    const inv = p.attachments.find((a) => a.filename === 'invoice.pdf')!;
    assert.equal(inv.mimeType, 'application/pdf');
    assert.deepEqual(Buffer.from(inv.content as ArrayBuffer), pdf);
    const logo = p.attachments.find((a) => a.filename === 'logo.png')!;
    assert.equal(logo.contentId, '<logo@x>');
    assert.equal(logo.disposition, 'inline');
    assert.deepEqual(Buffer.from(logo.content as ArrayBuffer), png);
    assert.match(raw, /multipart\/related/);

    // DKIM: verified by mailauth against the key published in DNS.
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const res = await dkimVerify(Buffer.from(raw), { resolver: (name: string, rr: string) => resolver.resolve(name, rr as 'TXT') });
    const sig = res.results[0];
    assert.equal(sig.status.result, 'pass', JSON.stringify(sig.status));
    assert.equal(sig.signingDomain, 'example.com');
    assert.equal(sig.selector, 'mr1');
    assert.match(raw, /^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed;/);

    // The record: Sent, Delivered events with the server's reply, attachment content dropped, MIME kept
    // without attachment content.
    const m = await messageOf(s, id);
    assert.equal(m.status, 'Sent');
    assert.ok((await recipientsOf(s, id)).every((r) => r.status === 'Sent' && r.settled_at !== null));
    const delivered = (await eventsOf(s, id)).filter((e) => e.type === 'Delivered');
    assert.equal(delivered.length, 3);
    assert.match(delivered[0].details.DeliveryMessage, /^smtp;250 /);
    assert.equal(delivered[0].details.DestinationServer, '127.0.0.1');
    assert.equal(delivered[0].details.DestinationIP, '127.0.0.1');
    const atts = await s.ctx.db.selectFrom('message_attachments').selectAll().where('message_id', '=', id).orderBy('position').execute();
    assert.deepEqual(
      atts.map((a) => [a.name, a.content_type, a.content, a.size]),
      [
        ['invoice.pdf', 'application/pdf', null, pdf.length],
        ['logo.png', 'image/png', null, png.length],
      ],
    );
    assert.ok(m.mime && m.mime.startsWith('DKIM-Signature:'));
    const stored = await PostalMime.parse(m.mime);
    assert.equal(stored.subject, 'Order №42 — confirmed');
    assert.ok(stored.attachments.every((a) => (a.content as ArrayBuffer).byteLength === 0), 'no attachment content kept');
    assert.ok(!stored.bcc && !m.mime.includes('dave@other.example'));
  });

  it('leaves a message unsigned when its From domain has no key, and text-only stays single-part', async () => {
    await addConfirmedSender(s, 'someone@nokey.example');
    const id = await send(s, { From: 'someone@nokey.example', To: 'x@dest.example', Subject: 'plain', TextBody: 'just text' });
    const before = sink.messages.length;
    await s.drain();
    const m = sink.messages.slice(before)[0];
    assert.ok(m, 'delivered');
    assert.ok(!/^DKIM-Signature:/im.test(m.raw));
    assert.match(m.raw, /^Content-Type: text\/plain/im);
    assert.equal((await messageOf(s, id)).status, 'Sent');
  });

  it('never delivers a message marked sandbox, even when a job exists for it', async () => {
    const id = await send(s, { From: FROM, To: 'y@dest.example', Subject: 's', TextBody: 't' });
    await s.ctx.db.updateTable('messages').set({ sandbox: 1 }).where('id', '=', id).execute();
    const before = sink.messages.length;
    await s.drain();
    assert.equal(sink.messages.length, before);
    assert.equal((await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', 'deliver').execute()).length, 0, 'job finished');
  });
});
