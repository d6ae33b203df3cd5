// A bounce recorded from an SMTP reply during delivery carries the exchange as its dump (issue 18): the
// commands sent and the reply that refused them, readable through GET /bounces/{id}/dump.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { send } from './helpers.js';

describe('bounce dump from an SMTP refusal during delivery', () => {
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

  const bounceOf = async (email: string) => {
    const list = await s.request('GET', `/bounces?count=10&offset=0&emailFilter=${encodeURIComponent(email)}`);
    assert.equal(list.body.Bounces.length, 1, list.text);
    return list.body.Bounces[0];
  };

  it('keeps the refused RCPT TO exchange', async () => {
    sink.rcptReplies.set('gone@dest.example', { code: 550, message: '5.1.1 <gone@dest.example>: Recipient address rejected: User unknown' });
    await send(s, { From: 'sender@example.com', To: 'gone@dest.example', Subject: 'x', TextBody: 'x' });
    await s.drain();
    const b = await bounceOf('gone@dest.example');
    assert.equal(b.Type, 'HardBounce');
    assert.equal(b.DumpAvailable, true);
    const dump = (await s.request('GET', `/bounces/${b.ID}/dump`)).body.Body as string;
    assert.match(dump, /^>>> MAIL FROM:<bounce\+[^>]+>$/m);
    assert.match(dump, /^>>> RCPT TO:<gone@dest\.example>$/m);
    assert.match(dump, /^<<< 550 5\.1\.1 <gone@dest\.example>: Recipient address rejected: User unknown$/m);
    assert.match(dump, /^Status: 5\.1\.1$/m);
    assert.doesNotMatch(dump, /^>>> DATA$/m, 'the transaction stopped at the refused RCPT TO');
    const full = await s.request('GET', `/bounces/${b.ID}`);
    assert.equal(full.body.Content, dump);
  });

  it('keeps the refused DATA exchange', async () => {
    sink.dataReplies.push({ code: 554, message: '5.7.1 Message rejected as spam' });
    await send(s, { From: 'sender@example.com', To: 'spam@dest.example', Subject: 'x', TextBody: 'x' });
    await s.drain();
    const b = await bounceOf('spam@dest.example');
    assert.equal(b.DumpAvailable, true);
    const dump = (await s.request('GET', `/bounces/${b.ID}/dump`)).body.Body as string;
    assert.match(dump, /^>>> DATA$/m);
    assert.match(dump, /^<<< 554 5\.7\.1 Message rejected as spam$/m);
  });
});
