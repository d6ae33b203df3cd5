// The whole path through real parts: a broadcast sent through the API, delivered over SMTP to a loopback
// relay, carries the unsubscribe headers; following the link suppresses the recipient, and the next send
// to them in that stream is refused (406) while other streams still reach them. Archived streams refuse
// sending (1236).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { addConfirmedSender, addVerifiedDomain } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const FROM = 'news@example.com';

describe('broadcast mail end to end', () => {
  let s: TestService;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
    await addVerifiedDomain(s, 'example.com', 'mr1');
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  const send = (MessageStream: string, To = 'Reader@dest.example') =>
    s.request('POST', '/email', { body: { From: FROM, To, Subject: 'News', TextBody: 'Hello', MessageStream } });
  const deliveredTo = async (to: string) => {
    const before = sink.messages.length;
    await s.drain();
    const got = sink.messages.slice(before).filter((m) => m.to.some((t) => t.toLowerCase() === to.toLowerCase()));
    assert.equal(got.length, 1);
    return PostalMime.parse(got[0].raw);
  };
  const header = (mail: Awaited<ReturnType<typeof PostalMime.parse>>, key: string) => mail.headers.find((h) => h.key === key)?.value;

  it('delivers broadcasts with a signed one-click unsubscribe that suppresses the recipient in that stream', async () => {
    const r = await send('broadcast');
    assert.equal(r.status, 200, r.text);
    const mail = await deliveredTo('reader@dest.example');
    const link = header(mail, 'list-unsubscribe');
    assert.match(link ?? '', /^<http:\/\/localhost:8080\/unsubscribe\/[\w-]+>$/);
    assert.equal(header(mail, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    // RFC 8058 section 4: the DKIM signature covers both headers.
    const signed = /\bh=([^;]+)/.exec((header(mail, 'dkim-signature') ?? '').replace(/\s+/g, ''))?.[1].toLowerCase().split(':') ?? [];
    assert.ok(signed.includes('list-unsubscribe') && signed.includes('list-unsubscribe-post'), signed.join(':'));

    const path = new URL(link!.slice(1, -1)).pathname;
    const u = await s.request('POST', path, { token: null, raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(u.status, 200);

    const again = await send('broadcast', 'reader@DEST.example');
    assert.equal(again.body.ErrorCode, 406, again.text);
    assert.match(again.body.Message, /Found inactive addresses: reader@DEST\.example/);
    assert.equal((await send('outbound')).status, 200, 'other streams still reach the address');
    const tx = await deliveredTo('reader@dest.example');
    assert.equal(header(tx, 'list-unsubscribe'), undefined, 'transactional mail carries no unsubscribe link');
  });

  it('lifting the suppression lets mail through again', async () => {
    const del = await s.request('POST', '/message-streams/broadcast/suppressions/delete', { body: { Suppressions: [{ EmailAddress: 'reader@dest.example' }] } });
    assert.equal(del.body.Suppressions[0].Status, 'Deleted');
    assert.equal((await send('broadcast')).status, 200);
    await deliveredTo('reader@dest.example');
  });

  it('adds no link on a broadcast stream whose owner handles unsubscribes (Custom)', async () => {
    const c = await s.request('POST', '/message-streams', {
      body: { ID: 'own-list', Name: 'Own list', MessageStreamType: 'Broadcasts', SubscriptionManagementConfiguration: { UnsubscribeHandlingType: 'Custom' } },
    });
    assert.equal(c.status, 200, c.text);
    assert.equal((await send('own-list', 'x@dest.example')).status, 200);
    assert.equal(header(await deliveredTo('x@dest.example'), 'list-unsubscribe'), undefined);
  });

  it('refuses sending on an archived stream (1236) and accepts it again once restored', async () => {
    assert.equal((await s.request('POST', '/message-streams/own-list/archive')).status, 200);
    const r = await send('own-list', 'y@dest.example');
    assert.equal(r.body.ErrorCode, 1236, r.text);
    assert.equal((await s.request('POST', '/message-streams/own-list/unarchive')).status, 200);
    assert.equal((await send('own-list', 'y@dest.example')).status, 200);
    await deliveredTo('y@dest.example');
  });
});
