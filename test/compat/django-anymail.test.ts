// tier: compat
// django-anymail's Postmark backend, unchanged (Debian python3-django-anymail with python3-django):
// clients/django-anymail.py configures a Django project's EMAIL_BACKEND and POSTMARK_API_URL and sends an
// AnymailMessage with attachments, a tag, metadata and its own Message-ID, then a template send. Each
// message is read back as delivered to the relay.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { delivered, describeWith, header, missingProgram, runProgram, step, stepsOf, type ProgramRun } from './programs.js';

// Debian's packages are for Debian's interpreter, not one earlier on PATH (pyenv and the like).
const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./clients/django-anymail.py', import.meta.url));
const missing = missingProgram(PYTHON, ['-c', 'import django, anymail.backends.postmark']);

describeWith("django-anymail's Postmark backend against mailroom", 'Python with python3-django and python3-django-anymail', missing, () => {
  let s: TestService;
  let sink: SmtpSink;
  let run: ProgramRun;
  let steps: Map<string, Record<string, any>>;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, 'sender@example.com');
    const t = await s.request('POST', '/templates', { body: { Name: 'Django welcome', Alias: 'django-welcome', Subject: 'Welcome {{name}}', TextBody: 'Hi {{name}}' } });
    assert.equal(t.status, 200, t.text);
    run = await runProgram(PYTHON, [SCRIPT], { MR_URL: s.url, MR_SERVER_TOKEN: s.serverToken });
    steps = stepsOf(run);
  });
  after(async () => {
    await s?.close();
    await sink?.close();
  });

  it('an AnymailMessage: tag, metadata, attachments (one inline) and its own Message-ID as written', async () => {
    const r = step(steps, 'send', run);
    assert.deepEqual(r.status, ['sent']);
    const details = (await s.request('GET', `/messages/outbound/${r.message_id}/details`)).body;
    assert.equal(details.Tag, 'shipping');
    assert.deepEqual(details.Metadata, { orderId: '42' });
    const mail = await delivered(s, sink, 'Django anymail');
    assert.equal(mail.messageId, '<order-44@shop.example>');
    assert.equal(header(mail, 'X-Order'), '42');
    assert.equal(mail.text?.trim(), 'Your order shipped.');
    const byName = new Map(mail.attachments.map((a) => [a.filename, a]));
    assert.equal(Buffer.from(byName.get('invoice.pdf')!.content as ArrayBuffer).toString(), '%PDF-1.4 invoice');
    const logo = byName.get('logo.gif');
    assert.equal(logo?.disposition, 'inline');
    assert.equal(logo.contentId?.replace(/^<|>$/g, ''), r.cid);
    assert.ok(mail.html?.includes(`cid:${r.cid}`));
  });

  it('a template send (template_id as the alias, merge_global_data as the model)', async () => {
    const r = step(steps, 'template', run);
    assert.deepEqual(r.status, ['sent']);
    const mail = await delivered(s, sink, 'Welcome Ann');
    assert.equal(mail.text?.trim(), 'Hi Ann');
    const details = (await s.request('GET', `/messages/outbound/${r.message_id}/details`)).body;
    assert.equal(details.Tag, 'welcome');
  });
});
