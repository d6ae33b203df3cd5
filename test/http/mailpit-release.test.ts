// Mailpit's release and webhook over a Sandbox server: POST /mailpit/api/v1/message/{ID}/release sends the
// captured message through the operator's relay (a real smtp-server on loopback, with AUTH), refused with
// Mailpit's 400 text when no relay is set or a recipient is not on the allowed list; and each new captured
// message's summary is POSTed to MAILROOM_MAILPIT_WEBHOOK_URL (a real HTTP server on loopback) by a job
// stored with the message, retried after a failed answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { MAILPIT_WEBHOOK_QUEUE } from '../../src/domain/accepting/mailpit-webhook-job.js';
import { recipientAllowed } from '../../src/domain/mailpit/release-recipients.js';

const FROM = 'app@shop.example';
const PDF = Buffer.from('%PDF-1.4 release me\n');

async function sandbox(s: TestService, name: string): Promise<string> {
  const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: name, DeliveryType: 'Sandbox' } });
  assert.equal(r.status, 200, r.text);
  return r.body.ApiTokens[0] as string;
}

const basic = (token: string) => ({ authorization: `Basic ${Buffer.from(`ci:${token}`).toString('base64')}` });

describe('Mailpit release through the configured relay', () => {
  let s: TestService;
  let relay: SmtpSink;
  let hook: WebhookReceiver;
  let token: string;

  before(async () => {
    relay = await startSmtpSink({ auth: { user: 'relay-user', pass: 'relay-pass' } });
    hook = await startWebhookReceiver();
    s = await startService({
      env: {
        MAILROOM_RELEASE_RELAY_HOST: '127.0.0.1',
        MAILROOM_RELEASE_RELAY_PORT: String(relay.port),
        MAILROOM_RELEASE_RELAY_TLS: 'none',
        MAILROOM_RELEASE_RELAY_USER: 'relay-user',
        MAILROOM_RELEASE_RELAY_PASSWORD: 'relay-pass',
        MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS: 'qa@real.example, *.team.example',
        MAILROOM_MAILPIT_WEBHOOK_URL: `${hook.url}/mailpit-hook`,
      },
    });
    await addConfirmedSender(s, FROM);
    token = await sandbox(s, 'Release inbox');
  });
  after(async () => {
    await s.close();
    await relay.close();
    await hook.close();
  });

  const send = async (subject: string) => {
    const r = await s.request('POST', '/email', {
      token,
      body: { From: `Shop <${FROM}>`, To: 'jane@dest.example', Bcc: 'secret@dest.example', Subject: subject, TextBody: 'Hello Jane', Attachments: [{ Name: 'a.pdf', Content: PDF.toString('base64'), ContentType: 'application/pdf' }] },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const release = (id: string, body: unknown) => s.request('POST', `/mailpit/api/v1/message/${id}/release`, { token: null, headers: basic(token), raw: JSON.stringify(body) });

  it('sends the message to allowed recipients through the relay, with AUTH, attachments and no Bcc', async () => {
    const id = await send('Release me');
    const r = await release(id, { To: ['QA <qa@real.example>', 'dev@eu.team.example'] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, 'ok');
    assert.equal(relay.messages.length, 2, 'one transaction per recipient');
    assert.deepEqual(relay.messages.map((m) => m.to).flat().sort(), ['dev@eu.team.example', 'qa@real.example']);
    const m = relay.messages[0]!;
    assert.equal(m.from, FROM);
    assert.match(m.raw, /^Subject: Release me\r?$/m);
    assert.ok(m.raw.includes(PDF.toString('base64').trim()), 'the kept attachment bytes are sent');
    assert.doesNotMatch(m.raw, /secret@dest\.example/, 'Bcc is never written into the message');
    const messageId = /^Message-ID: (.*)$/im.exec(m.raw)?.[1] ?? '';
    assert.ok(!messageId.includes(id), 'a released copy has a new Message-ID');
    // `latest` names the newest message, as elsewhere in Mailpit's API.
    const latest = await release('latest', { To: ['qa@real.example'] });
    assert.equal(latest.status, 200, latest.text);
    assert.equal(relay.messages.length, 3);
  });

  it('refuses recipients off the allowed list, bad addresses and missing messages, sending nothing', async () => {
    const id = await send('Not for everyone');
    const before = relay.messages.length;
    const off = await release(id, { To: ['qa@real.example', 'boss@elsewhere.example'] });
    assert.equal(off.status, 400);
    assert.match(off.text, /Address does not match the allowed recipients.*: boss@elsewhere\.example$/);
    const bad = await release(id, { To: ['not an address'] });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Invalid email address: not an address/);
    const none = await release(id, { To: [] });
    assert.equal(none.status, 400);
    assert.equal(none.text, 'No valid addresses found');
    const notList = await release(id, { To: 'qa@real.example' });
    assert.equal(notList.status, 400);
    const missing = await release('00000000-0000-0000-0000-000000000000', { To: ['qa@real.example'] });
    assert.equal(missing.status, 404);
    assert.equal(relay.messages.length, before);
  });

  it('answers the relay\'s refusal as Mailpit does: 400 "SMTP error: ..."', async () => {
    const id = await send('Refused by relay');
    relay.rcptReplies.set('qa@real.example', { code: 550, message: '5.1.1 No such user' });
    try {
      const r = await release(id, { To: ['qa@real.example'] });
      assert.equal(r.status, 400);
      assert.match(r.text, /^SMTP error: .*5\.1\.1 No such user/);
    } finally {
      relay.rcptReplies.delete('qa@real.example');
    }
  });

  it('says the relay in /api/v1/webui', async () => {
    const r = await s.request('GET', '/mailpit/api/v1/webui', { token: null, headers: basic(token) });
    assert.equal(r.body.MessageRelay.Enabled, true);
    assert.equal(r.body.MessageRelay.SMTPServer, `127.0.0.1:${relay.port}`);
    assert.equal(r.body.MessageRelay.AllowedRecipients, 'qa@real.example, *.team.example');
  });

  it('announces each new captured message to the webhook, durably, retrying a failed answer', async () => {
    // The earlier tests' messages are announced first.
    hook.respond(200);
    await s.drain();
    hook.requests.length = 0;
    let failed = false;
    hook.respond(() => (failed ? 200 : ((failed = true), 500)));
    const id = await send('Announce me');
    // The job was stored with the message; nothing was posted on the accept path.
    const jobs = await s.ctx.db.selectFrom('jobs').select(['id', 'message_id']).where('queue', '=', MAILPIT_WEBHOOK_QUEUE).execute();
    assert.ok(jobs.some((j) => j.message_id === id));
    assert.equal(hook.requests.length, 0);
    await s.drain();
    assert.equal(hook.requests.length, 1, 'first attempt answered 500');
    s.clock.advance(60_000);
    await s.drain();
    assert.equal(hook.requests.length, 2, 'retried after the back-off');
    const body = hook.requests[1]!.json;
    assert.equal(hook.requests[1]!.path, '/mailpit-hook');
    assert.equal(hook.requests[1]!.headers['content-type'], 'application/json');
    assert.equal(body.ID, id);
    assert.equal(body.Subject, 'Announce me');
    assert.deepEqual(body.From, { Name: 'Shop', Address: FROM });
    assert.deepEqual(body.To, [{ Name: '', Address: 'jane@dest.example' }]);
    assert.equal(body.Read, false);
    assert.equal(body.Attachments, 1);
    const left = await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', MAILPIT_WEBHOOK_QUEUE).execute();
    assert.equal(left.length, 0, 'done once answered 2xx');
  });

  it('matches allowed recipients by address, domain and *.domain only', () => {
    const list = ['qa@real.example', 'corp.example', '*.team.example'];
    assert.equal(recipientAllowed(list, 'qa@real.example'), true);
    assert.equal(recipientAllowed(list, 'other@real.example'), false);
    assert.equal(recipientAllowed(list, 'a@corp.example'), true);
    assert.equal(recipientAllowed(list, 'a@sub.corp.example'), false);
    assert.equal(recipientAllowed(list, 'a@x.team.example'), true);
    assert.equal(recipientAllowed(list, 'a@team.example'), false);
    assert.equal(recipientAllowed(list, 'a@evilteam.example'), false);
    assert.equal(recipientAllowed([], 'anyone@anywhere.example'), true);
  });
});

describe('Mailpit release without a relay', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('is refused with 400 naming the setting, and no webhook job is stored', async () => {
    await addConfirmedSender(s, FROM);
    const token = await sandbox(s, 'No relay');
    const sent = await s.request('POST', '/email', { token, body: { From: FROM, To: 'jane@dest.example', Subject: 'Hi', TextBody: 'x' } });
    assert.equal(sent.status, 200);
    const r = await s.request('POST', `/mailpit/api/v1/message/${sent.body.MessageID}/release`, { token: null, headers: basic(token), raw: '{"To":["a@b.example"]}' });
    assert.equal(r.status, 400);
    assert.match(r.text, /Release is not enabled: set MAILROOM_RELEASE_RELAY_HOST/);
    const jobs = await s.ctx.db.selectFrom('jobs').select('id').where('queue', '=', MAILPIT_WEBHOOK_QUEUE).execute();
    assert.equal(jobs.length, 0);
  });
});
