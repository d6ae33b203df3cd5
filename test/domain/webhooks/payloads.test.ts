import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { fanOutWebhooks } from '../../../src/domain/webhooks/fanout.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { ALL_TRIGGERS, addHook, insertMessage, record, verifyMailroomSignature } from './fixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

describe('webhook payloads and requests', () => {
  let s: TestService;
  let rx: WebhookReceiver;
  let hook: { id: number; secret: string };
  before(async () => {
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    rx = await startWebhookReceiver();
    hook = await addHook(s, `${rx.url}/hook`, {
      HttpAuth: { Username: 'alice', Password: 'S3cret:with:colons' },
      HttpHeaders: [{ Name: 'X-Api-Key', Value: 'key-123' }],
    });
  });
  after(async () => {
    await s.close();
    await rx.close();
  });
  beforeEach(() => {
    rx.requests.length = 0;
  });

  it('Delivery: payload, Basic auth, custom headers, ids and a signature that verifies', async () => {
    const messageId = await insertMessage(s, { tag: 'welcome', metadata: { customer: 'c-1' } });
    const [ev] = await record(s, [
      { messageId, type: 'Delivered', details: { DeliveryMessage: 'smtp;250 2.0.0 OK', DestinationServer: 'mx.example.net', DestinationIP: '192.0.2.1' }, tag: 'welcome', metadata: { customer: 'c-1' } },
    ]);
    await s.drain();
    assert.equal(rx.requests.length, 1);
    const r = rx.requests[0];
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/hook');
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal(r.headers.authorization, `Basic ${Buffer.from('alice:S3cret:with:colons').toString('base64')}`);
    assert.equal(r.headers['x-api-key'], 'key-123');
    assert.equal(r.headers['x-mailroom-event-id'], String(ev.id));
    assert.match(String(r.headers['x-mailroom-notification-id']), /^\d+$/);
    assert.equal(r.headers['x-mailroom-attempt'], '1');
    assert.ok(verifyMailroomSignature(hook.secret, r.headers, r.body));
    assert.ok(!verifyMailroomSignature(hook.secret, r.headers, r.body.replace('c-1', 'c-2')), 'a changed body fails');
    assert.ok(!verifyMailroomSignature('whsec_wrong', r.headers, r.body), 'another secret fails');
    assert.deepEqual(r.json, {
      RecordType: 'Delivery',
      ServerID: s.serverId,
      MessageStream: 'outbound',
      MessageID: messageId,
      Recipient: 'rcpt@example.net',
      Tag: 'welcome',
      DeliveredAt: r.json.DeliveredAt,
      Details: 'smtp;250 2.0.0 OK',
      Metadata: { customer: 'c-1' },
    });
    assert.match(r.json.DeliveredAt, ISO);
  });

  it('Open, Click and SubscriptionChange payloads; Tag and Metadata found from the message when not passed', async () => {
    const messageId = await insertMessage(s, { tag: null, metadata: { order: '42' } });
    const client = { Name: 'Chrome', Company: 'Google', Family: 'Chrome' };
    const os = { Name: 'Linux', Company: '', Family: 'Linux' };
    await record(s, [
      { messageId, type: 'Opened', details: { FirstOpen: true, Client: client, OS: os, Platform: 'Desktop', UserAgent: 'UA/1', Geo: { Country: 'Nowhere' } } },
      { messageId, type: 'LinkClicked', details: { Client: client, OS: os, Platform: 'Mobile', UserAgent: 'UA/2', OriginalLink: 'https://example.com/a', ClickLocation: 'Text' } },
      { messageId, type: 'SubscriptionChanged', details: { Origin: 'Recipient', SuppressSending: true, SuppressionReason: 'ManualSuppression' } },
    ]);
    await s.drain();
    const byType = Object.fromEntries(rx.requests.map((r) => [r.json.RecordType, r.json]));
    assert.deepEqual(Object.keys(byType).sort(), ['Click', 'Open', 'SubscriptionChange']);
    assert.deepEqual(byType.Open, {
      RecordType: 'Open',
      ServerID: s.serverId,
      MessageStream: 'outbound',
      FirstOpen: true,
      Client: client,
      OS: os,
      Platform: 'Desktop',
      UserAgent: 'UA/1',
      ReadSeconds: 0,
      Geo: { Country: 'Nowhere' },
      MessageID: messageId,
      ReceivedAt: byType.Open.ReceivedAt,
      Tag: '',
      Recipient: 'rcpt@example.net',
      Metadata: { order: '42' },
    });
    assert.equal(byType.Click.ClickLocation, 'Text');
    assert.equal(byType.Click.OriginalLink, 'https://example.com/a');
    assert.equal(byType.Click.Platform, 'Mobile');
    assert.deepEqual(byType.Click.Metadata, { order: '42' });
    assert.deepEqual(byType.SubscriptionChange, {
      RecordType: 'SubscriptionChange',
      MessageID: messageId,
      ServerID: s.serverId,
      MessageStream: 'outbound',
      ChangedAt: byType.SubscriptionChange.ChangedAt,
      Recipient: 'rcpt@example.net',
      Origin: 'Recipient',
      SuppressSending: true,
      SuppressionReason: 'ManualSuppression',
      Tag: '',
      Metadata: { order: '42' },
    });
    assert.match(byType.SubscriptionChange.ChangedAt, ISO);
  });

  it('Bounce and SpamComplaint carry the bounce record; Content only with IncludeContent', async () => {
    const withContent = await addHook(s, `${rx.url}/content`, { Triggers: { Bounce: { Enabled: true, IncludeContent: true }, SpamComplaint: { Enabled: true, IncludeContent: true } } });
    const messageId = await insertMessage(s, { tag: 'receipts', metadata: { k: 'v' } });
    const dump = 'From: MAILER-DAEMON\r\n\r\nUser unknown';
    const b = await s.ctx.db.transaction().execute((trx) =>
      recordBounce(trx, s.ctx, { messageId, email: 'rcpt@example.net', type: 'HardBounce', details: 'smtp;550 5.1.1 user unknown', bouncedAt: s.clock.now(), dump }),
    );
    const c = await s.ctx.db.transaction().execute((trx) =>
      recordBounce(trx, s.ctx, { messageId, email: 'rcpt@example.net', type: 'SpamComplaint', details: 'abuse report', bouncedAt: s.clock.now(), dump: 'ARF' }),
    );
    await s.drain();
    // (recordBounce may add a SubscriptionChange for the suppression; that is another test's concern.)
    const isBounce = (r: { json: any }) => r.json.RecordType === 'Bounce' || r.json.RecordType === 'SpamComplaint';
    const plain = rx.requests.filter((r) => r.path === '/hook' && isBounce(r));
    const content = rx.requests.filter((r) => r.path === '/content');
    assert.equal(plain.length, 2);
    assert.equal(content.length, 2);
    const bounce = plain.find((r) => r.json.RecordType === 'Bounce')!.json;
    assert.deepEqual(bounce, {
      RecordType: 'Bounce',
      ID: b!.bounceId,
      Type: 'HardBounce',
      TypeCode: 1,
      Name: 'Hard bounce',
      Tag: 'receipts',
      MessageID: messageId,
      ServerID: s.serverId,
      MessageStream: 'outbound',
      Description: bounce.Description,
      Details: 'smtp;550 5.1.1 user unknown',
      Email: 'rcpt@example.net',
      From: 'sender@example.com',
      BouncedAt: bounce.BouncedAt,
      DumpAvailable: true,
      Inactive: true,
      CanActivate: true,
      Subject: 'Hello',
      Metadata: { k: 'v' },
    });
    const spam = plain.find((r) => r.json.RecordType === 'SpamComplaint')!.json;
    assert.equal(spam.ID, c!.bounceId);
    assert.equal(spam.Type, 'SpamComplaint');
    assert.equal(spam.TypeCode, 100001);
    assert.equal(spam.CanActivate, false);
    assert.equal('Content' in spam, false);
    assert.equal(content.find((r) => r.json.RecordType === 'Bounce')!.json.Content, dump);
    assert.equal(content.find((r) => r.json.RecordType === 'SpamComplaint')!.json.Content, 'ARF');
    await s.request('DELETE', `/webhooks/${withContent.id}`);
  });

  it('PostFirstOpenOnly, disabled triggers, other streams and Processed/Transient produce nothing', async () => {
    rx.requests.length = 0;
    const firstOnly = await addHook(s, `${rx.url}/first`, { Triggers: { Open: { Enabled: true, PostFirstOpenOnly: true } } });
    await addHook(s, `${rx.url}/broadcast`, { MessageStream: 'broadcast' });
    const messageId = await insertMessage(s);
    await record(s, [
      { messageId, type: 'Processed', details: {} },
      { messageId, type: 'Transient', details: { Summary: 'try later' } },
      { messageId, type: 'Opened', details: { FirstOpen: true } },
      { messageId, type: 'Opened', details: { FirstOpen: false } },
      { messageId, type: 'Delivered', details: {} },
    ]);
    await s.drain();
    const paths = rx.requests.map((r) => `${r.path} ${r.json.RecordType} ${r.json.FirstOpen ?? ''}`).sort();
    // /hook gets both opens and the delivery; /first only the first open; /broadcast nothing.
    assert.deepEqual(paths, ['/first Open true', '/hook Delivery ', '/hook Open false', '/hook Open true']);
    await s.request('DELETE', `/webhooks/${firstOnly.id}`);
  });

  it('Processed and Transient events cost no query at all (the sending hot path)', async () => {
    const untouchable = new Proxy({}, { get: () => assert.fail('fan-out touched the database') }) as never;
    const base = { id: 1, messageId: 'm', serverId: s.serverId, streamId: 'outbound', recipient: 'a@b.c', occurredAt: 0, details: {} };
    await fanOutWebhooks(untouchable, s.ctx, [
      { ...base, type: 'Processed' },
      { ...base, type: 'Transient' },
    ]);
  });

  it('the notification is part of the event transaction: a rollback leaves neither', async () => {
    const messageId = await insertMessage(s);
    const before = await s.ctx.db.selectFrom('webhook_notifications').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await assert.rejects(
      s.ctx.db.transaction().execute(async (trx) => {
        const { recordEvents } = await import('../../../src/domain/events/record.js');
        await recordEvents(trx, s.ctx, [{ messageId, serverId: s.serverId, streamId: 'outbound', type: 'Delivered', recipient: 'rcpt@example.net', occurredAt: s.clock.now(), details: {} }]);
        const mid = await trx.selectFrom('webhook_notifications').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        assert.equal(Number(mid.n), Number(before.n) + 1);
        throw new Error('rollback');
      }),
      /rollback/,
    );
    const after = await s.ctx.db.selectFrom('webhook_notifications').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
    assert.equal(ALL_TRIGGERS.Delivery.Enabled, true);
  });
  it('after a secret rotation both secrets verify for 24 hours, then only the new one', async () => {
    const old = hook.secret;
    const r = await s.request('POST', `/webhooks/${hook.id}/rotate-secret`);
    const fresh: string = r.body.SigningSecret;
    const messageId = await insertMessage(s);
    const deliverOne = async () => {
      rx.requests.length = 0;
      await record(s, [{ messageId, type: 'Delivered', details: {} }]);
      await s.drain();
      return rx.requests.find((x) => x.path === '/hook')!;
    };
    const during = await deliverOne();
    assert.equal(String(during.headers['x-mailroom-signature']).split(',').length, 2);
    assert.ok(verifyMailroomSignature(fresh, during.headers, during.body));
    assert.ok(verifyMailroomSignature(old, during.headers, during.body));
    s.clock.advance(24 * 60 * 60_000 + 1_000);
    const afterGrace = await deliverOne();
    const day = 2 * 24 * 60 * 60; // the test clock runs a day ahead of the receiver's
    assert.equal(String(afterGrace.headers['x-mailroom-signature']).split(',').length, 1);
    assert.ok(verifyMailroomSignature(fresh, afterGrace.headers, afterGrace.body, day));
    assert.ok(!verifyMailroomSignature(old, afterGrace.headers, afterGrace.body, day));
  });
});
