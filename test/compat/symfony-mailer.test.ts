// tier: compat
// Symfony Mailer's Postmark bridge, unchanged (Debian php-symfony-postmark-mailer; Laravel's `postmark`
// mailer is this transport): clients/symfony-mailer.php sends through the API transport configured by a
// MAILER_DSN, over HTTPS to mailroom's own TLS listener (MAILROOM_HTTP_TLS_CERT/_KEY; the bridge builds
// https:// URLs only) with the certificate verified, and through the bridge's SMTP transport to the
// submission listener. Each message is read back as delivered to the relay.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { startSubmissionListener, type SubmissionListener } from '../../src/smtp-listeners/submission-listener.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { delivered, describeWith, header, missingProgram, runProgram, step, stepsOf, type ProgramRun } from './programs.js';

const PHP = process.env.PHP ?? 'php';
const SCRIPT = fileURLToPath(new URL('./clients/symfony-mailer.php', import.meta.url));
const CERT = fileURLToPath(new URL('../fixtures/tls/localhost.crt', import.meta.url));
const KEY = fileURLToPath(new URL('../fixtures/tls/localhost.key', import.meta.url));
const missing = missingProgram(PHP, ['-r', "require '/usr/share/php/Symfony/Component/Mailer/Bridge/Postmark/autoload.php'; require '/usr/share/php/Symfony/Component/HttpClient/autoload.php'; new Symfony\\Component\\Mailer\\Bridge\\Postmark\\Transport\\PostmarkApiTransport('x');"]);

describeWith("Symfony Mailer's Postmark bridge (Laravel's postmark mailer) against mailroom", 'PHP with php-symfony-postmark-mailer and php-symfony-http-client', missing, () => {
  let s: TestService;
  let sink: SmtpSink;
  let submission: SubmissionListener;
  let run: ProgramRun;
  let steps: Map<string, Record<string, any>>;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_HTTP_TLS_CERT: CERT, MAILROOM_HTTP_TLS_KEY: KEY, MAILROOM_SUBMISSION_PORT: '0' } });
    await addConfirmedSender(s, 'sender@example.com');
    submission = await startSubmissionListener(s.ctx);
    run = await runProgram(PHP, [SCRIPT], { MR_PORT: new URL(s.url).port, MR_SMTP_PORT: String(submission.port), MR_SERVER_TOKEN: s.serverToken, MR_CA: CERT });
    steps = stepsOf(run);
  });
  after(async () => {
    await submission?.stop();
    await s?.close();
    await sink?.close();
  });

  const asWritten = async (subject: string, messageId: string, id: string) => {
    // Read through inject: the service's own fetch would not trust the test certificate.
    const details = (await s.app.inject({ method: 'GET', url: `/messages/outbound/${id}/details`, headers: { 'x-postmark-server-token': s.serverToken } })).json();
    assert.equal(details.Tag, 'shipping', JSON.stringify(details).slice(0, 400));
    assert.deepEqual(details.Metadata, { orderId: '42' });
    const mail = await delivered(s, sink, subject);
    assert.equal(mail.messageId, `<${messageId}>`);
    assert.equal(header(mail, 'X-Order'), '42');
    assert.equal(header(mail, 'X-PM-KeepID'), undefined, 'the instruction is not delivered');
    assert.equal(mail.text?.trim(), 'Your order shipped.');
    const byName = new Map(mail.attachments.map((a) => [a.filename, a]));
    assert.equal(Buffer.from(byName.get('invoice.pdf')!.content as ArrayBuffer).toString(), '%PDF-1.4 invoice');
    const logo = byName.get('logo.gif');
    assert.equal(logo?.disposition, 'inline');
    assert.ok(mail.html?.includes(`cid:${logo.contentId!.replace(/^<|>$/g, '')}`), mail.html);
  };

  it('the API transport from a MAILER_DSN, over HTTPS: tag, metadata, attachments and its Message-ID as written', async () => {
    const r = step(steps, 'api', run);
    assert.match(r.transport, /^postmark\+api:\/\/127\.0\.0\.1:\d+$/);
    await asWritten('Symfony API', 'order-42@shop.example', r.message_id);
  });

  it("Laravel's path: the bridge's transport factory given mailroom's host (the custom mailer of docs/frameworks.md)", async () => {
    await asWritten('Laravel API', 'order-46@shop.example', step(steps, 'laravel', run).message_id);
  });

  it("the bridge's SMTP transport (X-PM-KeepID, X-PM-Tag, X-PM-Metadata-*) to the submission port", async () => {
    step(steps, 'smtp', run);
    await s.drain();
    const row = await s.ctx.db.selectFrom('messages').select(['id']).where('subject', '=', 'Symfony SMTP').executeTakeFirstOrThrow();
    await asWritten('Symfony SMTP', 'order-43@shop.example', row.id);
  });
});
