// Back-pressure at the parser threads (issue 28): when every parser thread is busy and MAILROOM_PARSE_QUEUE
// messages already wait, the next message is answered 451 4.3.2 at the end of DATA (the sender keeps it and
// retries), never held in memory without bound; once a thread is free the same message is taken. The thread
// is kept busy by a spamd that holds its answer (the spam check runs on the thread), over real SMTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHeldSpamd, type HeldSpamd } from '../../helpers/held-spamd.js';
import { waitFor } from '../../helpers/wait.js';
import { inboundSmtpPort } from '../../../src/smtp-listeners/inbound-listener.js';
import { startInbound, type InboundSetup } from './inbound-helpers.js';
import { rawSend } from './raw-send.js';

const message = (subject: string, to: string) =>
  [`From: "Jane Customer" <jane@customer.example>`, `To: ${to}`, `Subject: ${subject}`, `Message-ID: <${subject.replace(/ /g, '-')}@customer.example>`, '', 'Hello.', ''].join('\r\n');

describe('inbound mail when the parser threads are full', () => {
  let t: InboundSetup;
  let spamd: HeldSpamd;
  before(async () => {
    spamd = await startHeldSpamd();
    t = await startInbound({ MAILROOM_PARSE_THREADS: '1', MAILROOM_PARSE_THREAD_TASKS: '1', MAILROOM_PARSE_QUEUE: '1', MAILROOM_SPAMD: spamd.address });
  });
  after(async () => {
    await t.close();
    await spamd.close();
  });

  it('answers 451 4.3.2 past the queue, and takes the message once a thread is free', async () => {
    const port = inboundSmtpPort(t.s.ctx)!;
    const send = (subject: string) => rawSend(port, 'jane@customer.example', [t.address], message(subject, t.address));
    // The one thread holds the first message (its spam check), the second waits in the queue of one.
    const first = send('first');
    await waitFor(() => spamd.held() === 1, { what: 'the first message on the thread' });
    const second = send('second');
    await waitFor(() => t.s.ctx.threads.waiting === 1, { what: 'the second message in the queue' });
    const third = await send('third');
    assert.equal(third.code, 451, third.text);
    assert.match(third.text, /^451 4\.3\.2 /);
    spamd.release();
    await waitFor(() => (spamd.held() ? (spamd.release(), false) : t.s.ctx.threads.running === 0 && t.s.ctx.threads.waiting === 0), { what: 'the thread to be free' });
    for (const r of await Promise.all([first, second])) assert.equal(r.code, 250, r.text);
    // The sender's retry is taken.
    const retried = send('third');
    await waitFor(() => (spamd.held() ? (spamd.release(), true) : false), { what: 'the retry on the thread' });
    const again = await retried;
    assert.equal(again.code, 250, again.text);
    const rows = await t.s.ctx.db.selectFrom('inbound_messages').select('subject').orderBy('subject').execute();
    assert.deepEqual(rows.map((r) => r.subject), ['first', 'second', 'third'], 'each message stored once, the refused one after its retry');
  });
});
