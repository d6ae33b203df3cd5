import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { sendSystemMail, SystemMailError } from '../../../src/domain/delivery/system-mail.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

describe('system mail', () => {
  let sink: SmtpSink;
  let dns: TestDnsServer;
  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
  });
  after(async () => {
    await sink.close();
    await dns.close();
  });

  it('goes through the relay, From mailroom@<return-path domain>', async () => {
    const s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_RETURN_PATH_DOMAIN: 'pm.example.net' } });
    try {
      await sendSystemMail(s.ctx, { to: 'Owner@Example.ORG', subject: 'Confirm your sender', text: 'Click here', html: '<p>Click here</p>' });
      const m = sink.messages.at(-1)!;
      assert.equal(m.from, 'mailroom@pm.example.net');
      assert.deepEqual(m.to, ['owner@example.org']);
      const parsed = await PostalMime.parse(m.raw);
      assert.equal(parsed.subject, 'Confirm your sender');
      assert.equal(parsed.from?.address, 'mailroom@pm.example.net');
      assert.equal(parsed.text?.trim(), 'Click here');
      assert.equal(parsed.html?.trim(), '<p>Click here</p>');
      assert.match(parsed.messageId ?? '', /@pm\.example\.net>$/);
    } finally {
      await s.close();
    }
  });

  it('goes to the MX of the recipient domain and throws when refused', async () => {
    dns.set('example.com', [{ type: 'MX', exchange: 'mx.example.com', priority: 10 }]);
    dns.set('mx.example.com', [{ type: 'A', address: '127.0.0.1' }]);
    const s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address }, config: { mxPort: sink.port } });
    try {
      const before = sink.messages.length;
      await sendSystemMail(s.ctx, { to: 'a@example.com', subject: 'Hi', text: 'x' });
      assert.equal(sink.messages.length, before + 1);
      assert.deepEqual(sink.messages.at(-1)!.to, ['a@example.com']);
      sink.rcptReplies.set('gone@example.com', { code: 550, message: '5.1.1 No such user' });
      await assert.rejects(sendSystemMail(s.ctx, { to: 'gone@example.com', subject: 'Hi', text: 'x' }), (e: unknown) => e instanceof SystemMailError && e.permanent);
      sink.rcptReplies.set('later@example.com', { code: 450, message: '4.2.0 Try later' });
      await assert.rejects(sendSystemMail(s.ctx, { to: 'later@example.com', subject: 'Hi', text: 'x' }), (e: unknown) => e instanceof SystemMailError && !e.permanent);
    } finally {
      await s.close();
    }
  });
});
