// Back-pressure of SMTP submission at the parser threads (issue 28): the listener shares the process's parser
// threads with inbound mail; when all are busy and MAILROOM_PARSE_QUEUE messages wait, a submitted message is
// answered 451 4.3.2 (the client keeps it and retries), and taken once a thread is free. The one thread is
// kept busy by an inbound message whose spam check a held spamd does not answer yet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inboundSmtpPort } from '../../src/smtp-listeners/inbound-listener.js';
import { rawSend } from '../domain/inbound/raw-send.js';
import { startHeldSpamd, type HeldSpamd } from '../helpers/held-spamd.js';
import { waitFor } from '../helpers/wait.js';
import { FROM, startSubmissionRig, type SubmissionRig } from './helpers.js';

describe('SMTP submission when the parser threads are full', () => {
  let r: SubmissionRig;
  let spamd: HeldSpamd;
  before(async () => {
    spamd = await startHeldSpamd();
    r = await startSubmissionRig({ MAILROOM_PARSE_THREADS: '1', MAILROOM_PARSE_THREAD_TASKS: '1', MAILROOM_PARSE_QUEUE: '0', MAILROOM_SPAMD: spamd.address });
  });
  after(async () => {
    await r.close();
    await spamd.close();
  });

  it('answers 451 4.3.2 while the threads are full, and 250 once one is free', async () => {
    const put = await r.s.request('PUT', '/server', { body: { InboundHookUrl: '' } });
    assert.equal(put.status, 200, put.text);
    const inbound = put.body.InboundAddress as string;
    const busy = rawSend(inboundSmtpPort(r.s.ctx)!, 'jane@customer.example', [inbound], `From: jane@customer.example\r\nTo: ${inbound}\r\nSubject: hold\r\n\r\nHello.\r\n`);
    await waitFor(() => spamd.held() === 1, { what: 'the inbound message on the only thread' });

    const t = r.transport();
    const refused = await t.sendMail({ from: FROM, to: 'someone@dest.example', subject: 'busy', text: 'x' }).then(
      () => null,
      (err: { responseCode?: number; response?: string }) => err,
    );
    assert.ok(refused, 'refused while the thread is busy');
    assert.equal(refused.responseCode, 451);
    assert.match(refused.response ?? '', /^451 4\.3\.2 /);
    assert.equal(await r.s.ctx.db.selectFrom('messages').select('id').where('subject', '=', 'busy').executeTakeFirst(), undefined, 'nothing stored');

    spamd.release();
    assert.equal((await busy).code, 250);
    const info = await t.sendMail({ from: FROM, to: 'someone@dest.example', subject: 'busy', text: 'x' });
    assert.match(info.response, /^250 2\.0\.0 Ok: queued as /);
    const rows = await r.s.ctx.db.selectFrom('messages').select('id').where('subject', '=', 'busy').execute();
    assert.equal(rows.length, 1, 'stored once, on the retry');
  });
});
