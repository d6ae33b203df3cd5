import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unsubscribeHeaders } from '../../../src/domain/streams/unsubscribe-headers.js';
import { startService, type TestService } from '../../helpers/service.js';
import { insertMessage } from './fixtures.js';

const TRIGGERS = JSON.stringify({
  Open: { Enabled: false, PostFirstOpenOnly: false },
  Click: { Enabled: false },
  Delivery: { Enabled: false },
  Bounce: { Enabled: false, IncludeContent: false },
  SpamComplaint: { Enabled: false, IncludeContent: false },
  SubscriptionChange: { Enabled: true },
});

describe('unsubscribe (RFC 8058)', () => {
  let s: TestService;
  let messageId: string;
  before(async () => {
    s = await startService({ env: { MAILROOM_PUBLIC_URL: 'https://mail.example.com/' } });
    messageId = await insertMessage(s, { streamId: 'broadcast', to: ['Reader@Example.ORG', '"<b>x</b>"@example.org'], tag: 'weekly', metadata: { list: 'news' } });
    await s.ctx.db
      .insertInto('webhooks')
      .values({ server_id: s.serverId, stream_id: 'broadcast', url: 'https://hooks.example.com/x', triggers: TRIGGERS, signing_secret: s.ctx.secrets.seal('k'), created_at: s.clock.now(), updated_at: null })
      .execute();
  });
  after(() => s.close());

  const headersFor = (recipient: string, o: { streamId?: string; streamType?: string; id?: string } = {}) =>
    unsubscribeHeaders(s.ctx, { serverId: s.serverId, streamId: o.streamId ?? 'broadcast', streamType: o.streamType ?? 'Broadcasts', messageId: o.id ?? messageId, recipient });
  const pathOf = (headers: Array<{ key: string; value: string }>) => {
    const v = headers.find((h) => h.key === 'List-Unsubscribe')!.value;
    return new URL(v.slice(1, -1)).pathname;
  };
  const suppressions = () => s.ctx.db.selectFrom('suppressions').select(['stream_id', 'email', 'reason', 'origin']).where('server_id', '=', s.serverId).orderBy('email').execute();
  const events = () => s.ctx.db.selectFrom('message_events').select(['recipient', 'details']).where('message_id', '=', messageId).where('type', '=', 'SubscriptionChanged').execute();

  it('puts a signed per-recipient link and the one-click header on broadcast mail only', () => {
    const h = headersFor('Reader@Example.ORG');
    assert.equal(h.length, 2);
    assert.match(h[0].value, /^<https:\/\/mail\.example\.com\/unsubscribe\/[A-Za-z0-9_-]+>$/);
    assert.deepEqual(h[1], { key: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' });
    assert.notEqual(pathOf(h), pathOf(headersFor('other@example.org')));
    assert.deepEqual(headersFor('a@example.org', { streamId: 'outbound', streamType: 'Transactional' }), []);
    assert.deepEqual(unsubscribeHeaders(s.ctx, { serverId: 1, streamId: 'b', streamType: 'Broadcasts', messageId: 'm', recipient: 'a@b.c', unsubscribeHandling: 'Custom' }), []);
  });

  it('GET shows a confirmation page with a POST form and changes nothing', async () => {
    const r = await s.request('GET', pathOf(headersFor('Reader@Example.ORG')), { token: null, headers: { accept: 'text/html' } });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/html/);
    assert.match(r.text, /<form method="post">/);
    assert.match(r.text, /Reader@Example\.ORG/);
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
    assert.deepEqual(await suppressions(), []);
  });

  it('escapes a hostile address on the page', async () => {
    const r = await s.request('GET', pathOf(headersFor('"<b>x</b>"@example.org')), { token: null });
    assert.equal(r.status, 200);
    assert.ok(!r.text.includes('<b>x'));
    assert.ok(r.text.includes('&#60;b&#62;x'));
  });

  it('refuses forged and altered tokens with 404, changing nothing', async () => {
    const good = pathOf(headersFor('Reader@Example.ORG')).split('/').pop()!;
    assert.ok(!Buffer.from(good, 'base64url').toString('latin1').includes('Reader@Example.ORG'), 'opaque');
    const altered = good.slice(0, 30) + (good[30] === 'A' ? 'B' : 'A') + good.slice(31);
    // Tokens of the earlier signed form: the MAC on other data, or altered.
    const [data, mac] = s.ctx.secrets.sign('unsubscribe', ['u1', s.serverId, 'broadcast', messageId, 'Reader@Example.ORG'].join('\n')).split('.');
    const otherData = Buffer.from(['u1', s.serverId, 'broadcast', messageId, 'victim@example.org'].join('\n')).toString('base64url');
    const flipped = mac.slice(0, -2) + (mac.slice(-2) === 'AA' ? 'AB' : 'AA');
    for (const forged of [`${otherData}.${mac}`, `${data}.${flipped}`, altered, good.slice(0, -3), 'garbage', `${data}`, 'a.b']) {
      const g = await s.request('GET', `/unsubscribe/${forged}`, { token: null });
      assert.equal(g.status, 404, forged);
      assert.match(g.text, /not valid/);
      const p = await s.request('POST', `/unsubscribe/${forged}`, { token: null, raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(p.status, 404, forged);
      assert.equal(p.body.ErrorCode, 12);
    }
    assert.deepEqual(await suppressions(), []);
    assert.deepEqual(await events(), []);
  });

  it('one-click POST suppresses the recipient in the stream and records SubscriptionChanged once', async () => {
    const path = pathOf(headersFor('Reader@Example.ORG'));
    const r = await s.request('POST', path, { token: null, raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await suppressions(), [{ stream_id: 'broadcast', email: 'reader@example.org', reason: 'ManualSuppression', origin: 'Recipient' }]);
    const ev = await events();
    assert.equal(ev.length, 1);
    assert.equal(ev[0].recipient, 'Reader@Example.ORG');
    assert.deepEqual(JSON.parse(ev[0].details), { Origin: 'Recipient', SuppressSending: true, SuppressionReason: 'ManualSuppression' });
    const note = await s.ctx.db.selectFrom('webhook_notifications').select(['record_type', 'payload']).executeTakeFirstOrThrow();
    assert.equal(note.record_type, 'SubscriptionChange');
    const payload = JSON.parse(note.payload);
    assert.equal(payload.Tag, 'weekly');
    assert.deepEqual(payload.Metadata, { list: 'news' });
    // The dump shows it as the recipient's own suppression.
    const dump = await s.request('GET', '/message-streams/broadcast/suppressions/dump?origin=Recipient');
    assert.deepEqual(dump.body.Suppressions.map((x: any) => x.EmailAddress), ['reader@example.org']);

    // Again (a mail client retrying, multipart this time): 200, nothing new.
    const boundary = 'XyZ';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const again = await s.request('POST', path, { token: null, raw: multipart, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    assert.equal(again.status, 200);
    assert.equal((await events()).length, 1);
    // The page's own form, from a browser: an HTML answer.
    const browser = await s.request('POST', path, { token: null, raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } });
    assert.equal(browser.status, 200);
    assert.match(browser.text, /unsubscribed/);
    // A body without a content type, or none at all, is fine too.
    assert.equal((await s.request('POST', path, { token: null })).status, 200);
    // A link of mail sent before tokens were opaque (signed, readable) still works.
    const old = s.ctx.secrets.sign('unsubscribe', ['u1', s.serverId, 'broadcast', messageId, 'Old@Example.ORG'].join('\n'));
    assert.equal((await s.request('POST', `/unsubscribe/${old}`, { token: null, raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status, 200);
    assert.ok((await suppressions()).some((x) => x.email === 'old@example.org'));
  });

  it('still suppresses when the message itself is gone, and handles the longest addresses', async () => {
    // The longest local part, quoted and full of characters that other encodings would escape.
    const longAddr = `"${'\\"'.repeat(31)}"@${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(59)}.example`;
    assert.ok(longAddr.length >= 250);
    const gone = await insertMessage(s, { streamId: 'broadcast', to: [longAddr] });
    const path = pathOf(headersFor(longAddr, { id: gone }));
    await s.ctx.db.deleteFrom('messages').where('id', '=', gone).execute();
    assert.equal((await s.request('GET', path, { token: null })).status, 200);
    assert.equal((await s.request('POST', path, { token: null })).status, 200);
    assert.ok((await suppressions()).some((x) => x.email === longAddr));
  });
});
