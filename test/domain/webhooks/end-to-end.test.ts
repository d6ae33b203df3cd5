// The whole path: a message sent through the API, delivered over SMTP to a sink found through the loopback
// DNS server, and its Delivery and Bounce notifications arriving at the receiver with the send's MessageID,
// Tag and Metadata.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { addHook, verifyMailroomSignature } from './fixtures.js';

describe('webhooks end to end (real send, real SMTP)', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let rx: WebhookReceiver;
  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    rx = await startWebhookReceiver();
    dns.set('dest.example', [{ type: 'MX', exchange: 'mx.dest.example', priority: 10 }]);
    dns.set('mx.dest.example', [{ type: 'A', address: '127.0.0.1' }]);
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' }, config: { mxPort: sink.port } });
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
    await rx.close();
  });

  it('a delivered and a bounced recipient notify Delivery and Bounce with the message facts', async () => {
    const hook = await addHook(s, `${rx.url}/e2e`);
    sink.rcptReplies.set('gone@dest.example', { code: 550, message: '5.1.1 No such user here' });
    const sent = await s.request('POST', '/email', {
      body: { From: 'sender@example.com', To: 'ok@dest.example, gone@dest.example', Subject: 'e2e', TextBody: 'hello', Tag: 'onboarding', Metadata: { user: '7' } },
    });
    assert.equal(sent.status, 200, sent.text);
    const messageId = sent.body.MessageID;
    await s.drain();
    assert.ok(sink.messages.some((m) => m.to.includes('ok@dest.example')));
    for (const r of rx.requests) assert.ok(verifyMailroomSignature(hook.secret, r.headers, r.body));
    const delivery = rx.requests.find((r) => r.json.RecordType === 'Delivery')?.json;
    assert.ok(delivery, `no Delivery among ${rx.requests.map((r) => r.json.RecordType)}`);
    assert.equal(delivery.MessageID, messageId);
    assert.equal(delivery.Recipient, 'ok@dest.example');
    assert.equal(delivery.Tag, 'onboarding');
    assert.deepEqual(delivery.Metadata, { user: '7' });
    assert.match(delivery.Details, /250/);
    const bounce = rx.requests.find((r) => r.json.RecordType === 'Bounce')?.json;
    assert.ok(bounce, 'a Bounce notification');
    assert.equal(bounce.MessageID, messageId);
    assert.equal(bounce.Email, 'gone@dest.example');
    assert.equal(bounce.Type, 'HardBounce');
    assert.equal(bounce.Tag, 'onboarding');
    assert.deepEqual(bounce.Metadata, { user: '7' });
    const b = await s.request('GET', `/bounces/${bounce.ID}`);
    if (b.status === 200) assert.equal(b.body.Email, 'gone@dest.example');
    assert.equal(rx.requests.filter((r) => r.json.RecordType === 'Delivery' || r.json.RecordType === 'Bounce').length, 2, 'one notification per event');
  });
});
