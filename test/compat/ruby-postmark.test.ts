// tier: compat
// The hosted service's official Ruby gem, unchanged (Debian ruby-postmark with ruby-mail and ActionMailer),
// pointed at mailroom the way a Rails application is: clients/ruby-postmark.rb drives the ApiClient and
// AccountApiClient, a Mail::Message through `delivery_method Mail::Postmark`, and an ActionMailer mailer
// through the delivery method postmark-rails registers. Each message is then read back as delivered to the
// relay: subject, parts, attachments, tag, metadata and headers as the application wrote them, its own
// Message-ID kept where it sent `X-PM-KeepID: true`.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { delivered, describeWith, header, missingProgram, runProgram, step, stepsOf, type ProgramRun } from './programs.js';

const RUBY = process.env.RUBY ?? 'ruby';
const SCRIPT = fileURLToPath(new URL('./clients/ruby-postmark.rb', import.meta.url));
const missing = missingProgram(RUBY, ['-e', 'require "postmark"; require "mail"; require "action_mailer"']);

describeWith('the official Ruby gem (ruby-postmark, Mail, ActionMailer) against mailroom', 'Ruby with ruby-postmark, ruby-mail and ruby-actionmailer', missing, () => {
  let s: TestService;
  let sink: SmtpSink;
  let run: ProgramRun;
  let steps: Map<string, Record<string, any>>;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, 'sender@example.com');
    const url = new URL(s.url);
    run = await runProgram(RUBY, [SCRIPT], { MR_HOST: url.hostname, MR_PORT: url.port, MR_SERVER_TOKEN: s.serverToken, MR_ACCOUNT_TOKEN: s.accountToken });
    steps = stepsOf(run);
  });
  after(async () => {
    await s?.close();
    await sink?.close();
  });

  it('ApiClient#deliver: tag, metadata, a header and an attachment arrive as written', async () => {
    const r = step(steps, 'deliver', run);
    assert.equal(r.error_code, 0);
    const details = (await s.request('GET', `/messages/outbound/${r.message_id}/details`)).body;
    assert.equal(details.Tag, 'ruby-api');
    assert.deepEqual(details.Metadata, { orderId: '42' });
    const mail = await delivered(s, sink, 'Ruby deliver');
    assert.equal(header(mail, 'X-Order'), '42');
    assert.equal(mail.text?.trim(), 'Hello');
    assert.deepEqual(mail.attachments.map((a) => [a.filename, a.mimeType, Buffer.from(a.content as ArrayBuffer).toString()]), [['hello.txt', 'text/plain', 'hi there']]);
  });

  it('ApiClient: batches, templates (create, read, edit, validate, send, list), bounces and server info', async () => {
    assert.deepEqual(step(steps, 'deliver_in_batches', run).codes, [0, 0]);
    const t = step(steps, 'templates', run);
    assert.equal(t.alias, 'ruby-welcome');
    assert.equal(t.valid, true);
    assert.equal(t.rendered, 'Ann');
    const mail = await delivered(s, sink, 'Welcome, Ann');
    assert.match(mail.html ?? '', /Hi Ann/);
    assert.equal(step(steps, 'bounces', run).bounces, 0);
    assert.equal(step(steps, 'server_info', run).name, 'Default');
  });

  it('AccountApiClient: a server is created, read, renamed and deleted, its color read back as given', () => {
    const r = step(steps, 'servers', run);
    assert.equal(r.name, 'Ruby server 2');
    assert.equal(r.color, 'blue');
  });

  it('a Mail::Message through delivery_method Mail::Postmark arrives as written, its own Message-ID kept', async () => {
    const r = step(steps, 'mail_message', run);
    assert.equal(r.error_code, 0);
    const details = (await s.request('GET', `/messages/outbound/${r.message_id}/details`)).body;
    assert.equal(details.Tag, 'shipping');
    assert.deepEqual(details.Metadata, { orderId: '42' });
    const mail = await delivered(s, sink, 'Ruby Mail::Message');
    assert.equal(mail.messageId, '<order-42@shop.example>');
    assert.equal(header(mail, 'X-Order'), '42');
    assert.equal(mail.text?.trim(), 'Your order shipped.');
    assert.equal(mail.html?.trim(), '<p>Your order shipped.</p>');
    assert.deepEqual(mail.attachments.map((a) => [a.filename, a.mimeType]).sort(), [['invoice.pdf', 'application/pdf'], ['pixel.gif', 'image/gif']]);
    const pdf = mail.attachments.find((a) => a.filename === 'invoice.pdf')!;
    assert.equal(Buffer.from(pdf.content as ArrayBuffer).toString(), '%PDF-1.4 invoice');
  });

  it('ActionMailer with the postmark delivery method: tag, attachments (one inline) and Message-ID as written', async () => {
    const r = step(steps, 'action_mailer', run);
    assert.equal(r.delivered, true);
    const details = (await s.request('GET', `/messages/outbound/${r.message_id}/details`)).body;
    assert.equal(details.Tag, 'rails');
    const mail = await delivered(s, sink, 'Ruby ActionMailer');
    assert.equal(mail.messageId, '<shipped-42@shop.example>');
    assert.equal(mail.text?.trim(), 'Shipped.');
    assert.match(mail.html?.trim() ?? '', /^<p>Shipped\.<\/p><img src="cid:[^"]+">$/);
    const byName = new Map(mail.attachments.map((a) => [a.filename, a]));
    assert.equal(Buffer.from(byName.get('receipt.txt')!.content as ArrayBuffer).toString(), 'receipt 42');
    const logo = byName.get('logo.gif');
    assert.ok(logo?.contentId, 'the inline image keeps a Content-ID');
    assert.equal(logo.disposition, 'inline');
    assert.ok(mail.html?.includes(`cid:${logo.contentId.replace(/^<|>$/g, '')}`), mail.html);
  });
});
