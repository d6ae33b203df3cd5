// tier: compat
// nodemailer (a devDependency) sending through the hosted service's API: a transport of a few lines that hands
// nodemailer's own normalized message (what its jsonTransport prints) to the official `postmark` client, the
// one docs/frameworks.md shows. The transport on npm (nodemailer-postmark-transport) is not the vendor's,
// requires nodemailer 7 or 8 and brings postmark 4 with three more packages, so it is not a dependency
// here; its mapping is the same (headers, attachments with cid, tag, metadata). The message is read back
// as delivered to the relay, its own Message-ID kept with X-PM-KeepID.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer, { type SendMailOptions, type Transport } from 'nodemailer';
import type MailMessage from 'nodemailer/lib/mailer/mail-message.js';
import { ServerClient, type Models } from 'postmark';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { delivered, header } from './programs.js';

type Address = string | { name?: string; address: string };
const addresses = (v: Address | Address[] | undefined): string | undefined =>
  v === undefined ? undefined : ([] as Address[]).concat(v).map((a) => (typeof a === 'string' ? a : a.name ? `"${a.name}" <${a.address}>` : a.address)).join(', ');

/** nodemailer's message as the API's JSON; `tag`, `metadata` and `messageStream` are extra sendMail options. */
function postmarkTransport(client: ServerClient): Transport<{ messageId: string }> {
  return {
    name: 'postmark',
    version: '1.0.0',
    send(mail: MailMessage<{ messageId: string }>, callback) {
      mail.normalize((err, data) => {
        if (err || !data) return callback(err ?? new Error('no message'), { messageId: '' });
        const d = data as SendMailOptions & { tag?: string; metadata?: Record<string, string>; messageStream?: string };
        const headers = Object.entries(d.headers ?? {}).map(([Name, Value]) => ({ Name, Value: String(Value) }));
        if (d.messageId) headers.push({ Name: 'Message-ID', Value: d.messageId });
        const message: Models.Message = {
          From: addresses(d.from as Address)!,
          To: addresses(d.to as Address[]),
          Cc: addresses(d.cc as Address[]),
          Bcc: addresses(d.bcc as Address[]),
          ReplyTo: addresses(d.replyTo as Address[]),
          Subject: d.subject ?? '',
          TextBody: d.text as string | undefined,
          HtmlBody: d.html as string | undefined,
          Headers: headers,
          Tag: d.tag,
          Metadata: d.metadata,
          MessageStream: d.messageStream,
          // normalize() has read every attachment into base64.
          Attachments: (d.attachments ?? []).map((a) => ({ Name: a.filename as string, Content: a.content as string, ContentType: a.contentType ?? 'application/octet-stream', ContentID: a.cid ? `cid:${a.cid}` : null })),
        };
        client.sendEmail(message).then(
          (r) => callback(null, { messageId: r.MessageID }),
          (e: Error) => callback(e, { messageId: '' }),
        );
      });
    },
  };
}

const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

describe('nodemailer through the official postmark client against mailroom', () => {
  let s: TestService;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('sendMail with attachments (one inline), a tag, metadata and its own Message-ID arrives as written', async () => {
    const client = new ServerClient(s.serverToken, { useHttps: false, requestHost: new URL(s.url).host });
    const transporter = nodemailer.createTransport(postmarkTransport(client));
    const info = await transporter.sendMail({
      from: { name: 'Shop', address: 'sender@example.com' },
      to: 'reader@dest.example',
      subject: 'nodemailer postmark',
      text: 'Your order shipped.',
      html: '<p>Your order shipped.</p><img src="cid:logo">',
      messageId: '<order-45@shop.example>',
      headers: { 'X-PM-KeepID': 'true', 'X-Order': '42' },
      attachments: [
        { filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 invoice'), contentType: 'application/pdf' },
        { filename: 'logo.gif', content: GIF, contentType: 'image/gif', cid: 'logo' },
      ],
      tag: 'shipping',
      metadata: { orderId: '42' },
    } as SendMailOptions);
    const details = (await s.request('GET', `/messages/outbound/${info.messageId}/details`)).body;
    assert.equal(details.Tag, 'shipping', JSON.stringify(details).slice(0, 300));
    assert.deepEqual(details.Metadata, { orderId: '42' });
    const mail = await delivered(s, sink, 'nodemailer postmark');
    assert.equal(mail.messageId, '<order-45@shop.example>');
    assert.equal(header(mail, 'X-Order'), '42');
    assert.equal(mail.from?.name, 'Shop');
    const byName = new Map(mail.attachments.map((a) => [a.filename, a]));
    assert.equal(Buffer.from(byName.get('invoice.pdf')!.content as ArrayBuffer).toString(), '%PDF-1.4 invoice');
    assert.equal(byName.get('logo.gif')?.contentId, '<logo>');
    assert.equal(byName.get('logo.gif')?.disposition, 'inline');
  });
});
