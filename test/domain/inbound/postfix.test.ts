// End to end with a real MTA: mailroom delivers through a private Postfix that accepts a message for an
// unknown local user and then generates its own DSN to the VERP return path; Postfix delivers that DSN to
// mailroom's bounce listener, which turns it into a hard bounce for the right message and recipient, and
// the next send to the address is refused with 406. Skips (saying why) where Postfix cannot run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inboundSmtpPort } from '../../../src/smtp-listeners/inbound-listener.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait.js';
import { FROM, sendOne } from './helpers.js';
import { freePort, postfixUnavailable, startPostfix, type PostfixInstance } from './postfix.js';

const unavailable = postfixUnavailable();
if (unavailable) console.warn(`\n##  SKIPPING the Postfix end-to-end bounce test: ${unavailable}\n`);

describe('bounces from a real Postfix', { skip: unavailable ?? false }, () => {
  let s: TestService;
  let pf: PostfixInstance;
  const DOMAIN = 'recipient.test';
  before(async () => {
    const port = await freePort();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${port}` } });
    await addConfirmedSender(s, FROM);
    pf = await startPostfix({ port, destination: DOMAIN, relayDomain: s.config.returnPathDomain, relayPort: inboundSmtpPort(s.ctx)! });
  });
  after(async () => {
    await pf?.stop();
    await s?.close();
  });

  it('turns the DSN Postfix generates for an unknown user into a HardBounce, and then refuses the address with 406', async () => {
    const to = `no-such-user-${Date.now()}@${DOMAIN}`;
    const m = await sendOne(s, to);
    await s.drain();
    // Postfix took the message at RCPT time (it has no recipient table): the delivery itself succeeded.
    const events = await s.ctx.db.selectFrom('message_events').select('type').where('message_id', '=', m.messageId).execute();
    assert.ok(events.some((e) => e.type === 'Delivered'), `delivered to Postfix; log:\n${pf.log()}`);

    const bounce = await waitFor(
      async () => (await s.request('GET', `/bounces?count=10&offset=0&messageid=${m.messageId}`)).body.Bounces[0],
      { timeoutMs: 30_000, what: 'the DSN from Postfix to arrive' },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\nPostfix log:\n${pf.log()}`);
    });
    assert.equal(bounce.Type, 'HardBounce');
    assert.equal(bounce.Email, to);
    assert.equal(bounce.MessageID, m.messageId);
    assert.equal(bounce.Inactive, true);
    assert.match(bounce.Details, /unknown user/i);
    const dump = (await s.request('GET', `/bounces/${bounce.ID}/dump`)).body.Body as string;
    assert.match(dump, /report-type=delivery-status/);
    assert.match(dump, /Reporting-MTA: dns; ?mx\.postfix-test\.example/);

    const rcpt = await s.ctx.db.selectFrom('message_recipients').select('status').where('id', '=', m.recipientId).executeTakeFirstOrThrow();
    assert.equal(rcpt.status, 'Bounced');
    const again = await s.request('POST', '/email', { body: { From: FROM, To: to, Subject: 'again', TextBody: 'again' } });
    assert.equal(again.status, 422);
    assert.equal(again.body.ErrorCode, 406);
  });
});

describe('bounces from a real Postfix that insists on STARTTLS', { skip: unavailable ?? false }, () => {
  let s: TestService;
  let pf: PostfixInstance;
  const DOMAIN = 'recipient.test';
  before(async () => {
    const port = await freePort();
    s = await startService({
      env: {
        MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${port}`,
        MAILROOM_INBOUND_TLS_CERT: fileURLToPath(new URL('../../fixtures/tls/localhost.crt', import.meta.url)),
        MAILROOM_INBOUND_TLS_KEY: fileURLToPath(new URL('../../fixtures/tls/localhost.key', import.meta.url)),
      },
    });
    await addConfirmedSender(s, FROM);
    // smtp_tls_security_level = encrypt: Postfix defers rather than deliver without TLS (RFC 3207).
    pf = await startPostfix({ port, destination: DOMAIN, relayDomain: s.config.returnPathDomain, relayPort: inboundSmtpPort(s.ctx)!, smtpTlsLevel: 'encrypt' });
  });
  after(async () => {
    await pf?.stop();
    await s?.close();
  });

  it('delivers its DSN to the listener over STARTTLS, recorded as a HardBounce', async () => {
    const to = `tls-no-such-user-${Date.now()}@${DOMAIN}`;
    const m = await sendOne(s, to);
    await s.drain();
    const bounce = await waitFor(
      async () => (await s.request('GET', `/bounces?count=10&offset=0&messageid=${m.messageId}`)).body.Bounces[0],
      { timeoutMs: 30_000, what: 'the DSN from Postfix to arrive over TLS' },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\nPostfix log:\n${pf.log()}`);
    });
    assert.equal(bounce.Type, 'HardBounce');
    assert.equal(bounce.Email, to);
    assert.match(pf.log(), /TLS connection established to 127\.0\.0\.1\[127\.0\.0\.1\]:\d+: TLSv1\.[23]/);
  });
});
