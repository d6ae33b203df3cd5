import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type Socket } from 'node:net';
import { inboundSmtpPort, MAX_CLIENTS, MAX_MESSAGE_BYTES } from '../../../src/smtp-listeners/inbound-listener.js';
import { purgeReportDigests, REPORT_DIGEST_TTL_MS } from '../../../src/domain/inbound/purge.js';
import { encodeVerp } from '../../../src/infra/mime/verp.js';
import { loadFixture } from '../../fixtures/load.js';
import type { TestService } from '../../helpers/service.js';
import type { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { waitFor } from '../../helpers/wait.js';
import { deliverReport, FROM, sendOne, startWithWebhooks, type SentMessage } from './helpers.js';

describe('inbound SMTP listener: DSNs and complaints over real SMTP', () => {
  let s: TestService;
  let hooks: WebhookReceiver;
  let close: () => Promise<void>;
  before(async () => {
    ({ s, hooks, close } = await startWithWebhooks({ Bounce: { Enabled: true, IncludeContent: true }, SpamComplaint: { Enabled: true }, SubscriptionChange: { Enabled: true } }));
  });
  after(() => close());

  const report = (file: string, m: SentMessage) => loadFixture(file, { recipient: m.recipient, verp: m.verp, messageId: m.messageId });
  const bouncesOf = async (messageId: string) => (await s.request('GET', `/bounces?count=50&offset=0&messageID=${messageId}`)).body.Bounces;
  const suppressed = (email: string) =>
    s.ctx.db.selectFrom('suppressions').select(['reason', 'origin', 'stream_id']).where('server_id', '=', s.serverId).where('email', '=', email).executeTakeFirst();

  it('turns a Postfix DSN into a hard bounce: record, dump, suppression, event, webhook, and 406 on the next send', async () => {
    const m = await sendOne(s, 'Nobody@Recipient.example');
    const raw = report('postfix-unknown-user.eml', m);
    const answer = await deliverReport(s, m.verp, raw);
    assert.ok(answer.ok, answer.response);
    assert.match(answer.response, /^250/);

    const [b] = await bouncesOf(m.messageId);
    assert.equal(b.RecordType, 'Bounce');
    assert.equal(b.Type, 'HardBounce');
    assert.equal(b.TypeCode, 1);
    assert.equal(b.Email, 'nobody@recipient.example');
    assert.equal(b.From, FROM);
    assert.equal(b.MessageStream, 'outbound');
    assert.equal(b.Subject, 'Your receipt');
    assert.equal(b.Inactive, true);
    assert.equal(b.CanActivate, true);
    assert.equal(b.DumpAvailable, true);
    assert.match(b.Details, /unknown user/);

    const dump = await s.request('GET', `/bounces/${b.ID}/dump`);
    assert.equal(dump.body.Body.replace(/\r\n/g, '\n'), raw.replace(/\r\n/g, '\n'));
    assert.deepEqual(await suppressed('nobody@recipient.example'), { reason: 'HardBounce', origin: 'Recipient', stream_id: 'outbound' });

    const rcpt = await s.ctx.db.selectFrom('message_recipients').select('status').where('id', '=', m.recipientId).executeTakeFirstOrThrow();
    assert.equal(rcpt.status, 'Bounced');
    const events = await s.ctx.db.selectFrom('message_events').select(['type', 'details']).where('message_id', '=', m.messageId).execute();
    const bounced = events.find((e) => e.type === 'Bounced');
    assert.equal(JSON.parse(bounced!.details).BounceID, b.ID);
    assert.ok(events.some((e) => e.type === 'SubscriptionChanged'));

    const again = await s.request('POST', '/email', { body: { From: FROM, To: 'nobody@recipient.example', Subject: 'x', TextBody: 'x' } });
    assert.equal(again.status, 422);
    assert.equal(again.body.ErrorCode, 406);

    await s.drain();
    const hook = await waitFor(() => hooks.requests.find((r) => r.json?.RecordType === 'Bounce' && r.json.ID === b.ID), { what: 'Bounce webhook' });
    assert.equal(hook.json.Type, 'HardBounce');
    assert.equal(hook.json.Email, 'nobody@recipient.example');
    assert.equal(hook.json.MessageID, m.messageId);
    assert.match(hook.json.Content, /unknown user/);
    assert.ok(hooks.requests.some((r) => r.json?.RecordType === 'SubscriptionChange' && r.json.SuppressionReason === 'HardBounce'));
  });

  it('takes the same report once even when the sender delivers it twice', async () => {
    const m = await sendOne(s, 'twice@recipient.example');
    const raw = report('gmail-no-such-user.eml', m);
    assert.ok((await deliverReport(s, m.verp, raw)).ok);
    assert.ok((await deliverReport(s, m.verp, raw)).ok);
    assert.equal((await bouncesOf(m.messageId)).length, 1);
    // The digests outlive any sender's retry window (7 days), then go.
    const digests = () => s.ctx.db.selectFrom('inbound_reports').select('received_at').orderBy('received_at').execute();
    const oldest = (await digests())[0].received_at;
    assert.equal(await purgeReportDigests(s.ctx, oldest + REPORT_DIGEST_TTL_MS), 0);
    const before = (await digests()).length;
    assert.ok((await purgeReportDigests(s.ctx, oldest + REPORT_DIGEST_TTL_MS + 1)) >= 1);
    assert.ok((await digests()).length < before);
  });

  it('records an ARF abuse report as a spam complaint that cannot be activated', async () => {
    const m = await sendOne(s, 'angry@recipient.example');
    assert.ok((await deliverReport(s, m.verp, report('arf-yahoo-abuse.eml', m))).ok);
    const [b] = await bouncesOf(m.messageId);
    assert.equal(b.Type, 'SpamComplaint');
    assert.equal(b.TypeCode, 100001);
    assert.equal(b.CanActivate, false);
    assert.equal(b.Inactive, true);
    assert.equal((await suppressed('angry@recipient.example'))?.reason, 'SpamComplaint');
    const act = await s.request('PUT', `/bounces/${b.ID}/activate`);
    assert.equal(act.status, 422);
    assert.equal(act.body.ErrorCode, 1003);
    // A complaint proves delivery: the recipient is not marked bounced.
    const rcpt = await s.ctx.db.selectFrom('message_recipients').select('status').where('id', '=', m.recipientId).executeTakeFirstOrThrow();
    assert.notEqual(rcpt.status, 'Bounced');
    await s.drain();
    await waitFor(() => hooks.requests.find((r) => r.json?.RecordType === 'SpamComplaint' && r.json.ID === b.ID), { what: 'SpamComplaint webhook' });
  });

  it('ties a feedback-loop report sent to fbl@ back through the original Message-ID', async () => {
    const m = await sendOne(s, 'redacted@recipient.example');
    const raw = report('arf-redacted.eml', m).replace(/To: redacted@hotmail\.com/, 'To: someone@hotmail.example');
    assert.ok((await deliverReport(s, `fbl@${s.config.returnPathDomain}`, raw)).ok);
    const [b] = await bouncesOf(m.messageId);
    assert.equal(b?.Type, 'SpamComplaint');
    assert.equal(b.Email, 'redacted@recipient.example');
  });

  it("ties a feedback-loop report back through the original's Return-Path when it kept its own Message-ID", async () => {
    // A message sent with X-PM-KeepID: true carries the application's Message-ID; the report names that one.
    const m = await sendOne(s, 'kept-id@recipient.example');
    const raw = report('arf-redacted.eml', m)
      .replace(/To: redacted@hotmail\.com/, 'To: someone@hotmail.example')
      .replace(new RegExp(`Message-ID: <${m.messageId}@mailroom>`), 'Message-ID: <ticket-1.reply-2@helpdesk.example>');
    assert.ok(raw.includes('<ticket-1.reply-2@helpdesk.example>'));
    assert.ok((await deliverReport(s, `fbl@${s.config.returnPathDomain}`, raw)).ok);
    const [b] = await bouncesOf(m.messageId);
    assert.equal(b?.Type, 'SpamComplaint');
    assert.equal(b.Email, 'kept-id@recipient.example');
  });

  it('keeps delayed DSNs and auto-replies as non-suppressing records', async () => {
    const d = await sendOne(s, 'slow@recipient.example');
    assert.ok((await deliverReport(s, d.verp, report('postfix-delayed.eml', d))).ok);
    const [t] = await bouncesOf(d.messageId);
    assert.equal(t.Type, 'Transient');
    assert.equal(t.Inactive, false);
    assert.equal(await suppressed('slow@recipient.example'), undefined);

    const a = await sendOne(s, 'away@recipient.example');
    assert.ok((await deliverReport(s, a.verp, report('auto-reply-exchange.eml', a), a.recipient)).ok);
    const [ar] = await bouncesOf(a.messageId);
    assert.equal(ar.Type, 'AutoResponder');
    assert.equal(ar.Inactive, false);
    assert.equal(await suppressed('away@recipient.example'), undefined);
    const ok = await s.request('POST', '/email', { body: { From: FROM, To: 'slow@recipient.example, away@recipient.example', Subject: 'x', TextBody: 'x' } });
    assert.equal(ok.status, 200, ok.text);
  });

  it('refuses recipients that are not signed VERP addresses of a return-path domain, at RCPT time', async () => {
    const m = await sendOne(s, 'target@recipient.example');
    const raw = report('postfix-unknown-user.eml', m);
    const forged = m.verp.replace(/\.([0-9a-z_-]{12})@/i, '.aaaaaaaaaaaa@');
    const otherRecipient = m.verp.replace(`.${m.recipientId}.`, `.${m.recipientId + 1}.`);
    const foreignDomain = encodeVerp(s.ctx.secrets, { messageId: m.messageId, recipientId: m.recipientId }, 'elsewhere.example');
    for (const to of ['postmaster@example.com', `someone@${s.config.returnPathDomain}`, forged, otherRecipient, foreignDomain, 'fbl@elsewhere.example']) {
      const r = await deliverReport(s, to, raw);
      assert.equal(r.ok, false, to);
      assert.equal(r.code, 550, `${to}: ${r.response}`);
      assert.match(r.response, /5\.1\.1/);
    }
    const long = await deliverReport(s, `${'a'.repeat(250)}@${s.config.returnPathDomain}`, raw);
    assert.equal(long.ok, false);
    assert.ok(long.code! >= 500, long.response);
    assert.equal((await bouncesOf(m.messageId)).length, 0);
    assert.equal(await suppressed('target@recipient.example'), undefined);
  });

  it('takes VERP mail at a custom Return-Path domain only once it is verified', async () => {
    const m = await sendOne(s, 'custom@recipient.example');
    const verp = encodeVerp(s.ctx.secrets, { messageId: m.messageId, recipientId: m.recipientId }, 'pm-bounces.acme.example');
    const raw = report('postfix-unknown-user.eml', { ...m, verp });
    await s.ctx.db.updateTable('domains').set({ return_path_domain: 'pm-bounces.acme.example', return_path_verified: 0 }).where('name', '=', 'acme.example').execute();
    assert.equal((await deliverReport(s, verp, raw)).code, 550);
    await s.ctx.db.updateTable('domains').set({ return_path_verified: 1 }).where('name', '=', 'acme.example').execute();
    assert.ok((await deliverReport(s, verp, raw)).ok);
    assert.equal((await bouncesOf(m.messageId))[0]?.Type, 'HardBounce');
  });

  it('serves at most MAX_CLIENTS connections at once and answers the next with 421', async () => {
    const port = inboundSmtpPort(s.ctx)!;
    // From ten loopback addresses, each under the per-client limit (smtp-listeners/client-slots.ts).
    const greet = (i: number) =>
      new Promise<{ socket: Socket; banner: string }>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${10 + (i % 10)}` });
        socket.once('error', reject);
        socket.once('data', (d) => resolve({ socket, banner: d.toString() }));
      });
    const open: Socket[] = [];
    try {
      const first = await Promise.all(Array.from({ length: MAX_CLIENTS }, (_, i) => greet(i)));
      open.push(...first.map((c) => c.socket));
      for (const c of first) assert.match(c.banner, /^220 /);
      const extra = await greet(MAX_CLIENTS);
      open.push(extra.socket);
      assert.match(extra.banner, /^421 .*Too many connected clients/);
    } finally {
      for (const c of open) c.destroy();
    }
    const m = await sendOne(s, 'after-crowd@recipient.example');
    await waitFor(async () => (await deliverReport(s, m.verp, report('postfix-unknown-user.eml', m))).ok, { what: 'a free connection slot' });
  });

  it('answers oversized and malformed input with SMTP errors or a harmless 250, and keeps serving', async () => {
    const m = await sendOne(s, 'big@recipient.example');
    // A DSN padded to exactly the limit is taken; one byte more is refused with 552 and records nothing.
    const pad = (dsn: string, n: number) => {
      const body = `${dsn.slice(0, dsn.lastIndexOf('--4Xk2Lq0bR1z9sT'))}`;
      const tail = dsn.slice(dsn.lastIndexOf('--4Xk2Lq0bR1z9sT'));
      const fill = n - Buffer.byteLength(body) - Buffer.byteLength(tail);
      const line = `${'x'.repeat(98)}\r\n`;
      return body + line.repeat(Math.floor(fill / 100)) + 'y'.repeat(fill % 100) + tail;
    };
    const over = await deliverReport(s, m.verp, pad(report('postfix-unknown-user.eml', m), MAX_MESSAGE_BYTES + 1));
    assert.equal(over.ok, false);
    assert.equal(over.code, 552);
    assert.equal((await bouncesOf(m.messageId)).length, 0);
    const m2 = await sendOne(s, 'big2@recipient.example');
    const dsn2 = pad(report('postfix-unknown-user.eml', m2), MAX_MESSAGE_BYTES);
    assert.equal(Buffer.byteLength(dsn2), MAX_MESSAGE_BYTES);
    const at = await deliverReport(s, m2.verp, dsn2);
    assert.ok(at.ok, at.response);
    assert.equal((await bouncesOf(m2.messageId))[0]?.Type, 'HardBounce');
    for (const junk of ['\u0000\u0001\u0002 not a message', 'Content-Type: multipart/report; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nAction: \u0000\r\n--x--\r\n']) {
      const j = await deliverReport(s, m.verp, junk);
      assert.ok(j.ok, j.response);
    }
    assert.equal((await bouncesOf(m.messageId)).length, 0);
    // Still serving after all that.
    assert.ok((await deliverReport(s, m.verp, report('sendmail-mailbox-full.eml', m))).ok);
    assert.equal((await bouncesOf(m.messageId))[0].Type, 'SoftBounce');
  });
});
