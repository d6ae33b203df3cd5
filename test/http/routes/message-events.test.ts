// GET /messages/outbound/{id}/details in the hosted service's form (issue 27): its official Python client
// validates MessageEvents[].Type against Delivered, Transient, Opened, Bounced, SubscriptionChanged and
// LinkClicked, and each Details field as a string. A delivery, a bounce, opens, clicks and a spam complaint
// made through the real paths (relay, tracking routes, the ARF report at the bounce listener).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeVerp } from '../../../src/infra/mime/verp.js';
import { clickUrl, openUrl } from '../../../src/domain/tracking/tokens.js';
import { loadFixture } from '../../fixtures/load.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { deliverReport } from '../../domain/inbound/helpers.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { ADMIN, addUsers, ConsoleClient } from '../console/helpers.js';

const FROM = 'events@example.com';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const HOSTED_TYPES = ['Delivered', 'Transient', 'Opened', 'Bounced', 'SubscriptionChanged', 'LinkClicked'];
// The Details fields of each type in the hosted service's outbound message details example.
const FIELDS: Record<string, string[]> = {
  Delivered: ['DeliveryMessage', 'DestinationIP', 'DestinationServer'],
  Transient: ['DeliveryMessage', 'DestinationIP', 'DestinationServer'],
  Bounced: ['BounceID', 'Summary'],
  Opened: ['Summary'],
  LinkClicked: ['ClickLocation', 'Link', 'Summary'],
  SubscriptionChanged: ['Origin', 'SuppressSending', 'SuppressionReason'],
};

interface Event {
  Recipient: string;
  Type: string;
  ReceivedAt: string;
  Details: Record<string, unknown>;
}

describe('MessageEvents of the message details, in the hosted service\'s form', () => {
  let s: TestService;
  let sink: SmtpSink;
  const ids: Record<string, string> = {};
  const send = async (o: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { body: { From: FROM, To: 'reader@example.net', Subject: 'Hi', HtmlBody: '<p><a href="https://example.org/a">a</a></p>', ...o } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const hit = async (url: string) => {
    const r = await fetch(s.url + new URL(url).pathname, { headers: { 'user-agent': CHROME }, redirect: 'manual' });
    await r.arrayBuffer();
    assert.ok(r.status === 200 || r.status === 302, String(r.status));
  };
  const events = async (id: string): Promise<Event[]> => {
    const r = await s.request('GET', `/messages/outbound/${id}/details`);
    assert.equal(r.status, 200, r.text);
    return r.body.MessageEvents;
  };
  const bounceOf = async (id: string) => {
    const r = await s.request('GET', `/bounces?count=10&offset=0&messageID=${id}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.Bounces.length, 1);
    return r.body.Bounces[0] as { ID: number; Type: string; Description: string };
  };

  before(async () => {
    sink = await startSmtpSink();
    sink.rcptReplies.set('gone@example.net', { code: 550, message: '5.1.1 No such user' });
    sink.rcptReplies.set('later@example.net', { code: 452, message: '4.2.2 Mailbox full' });
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
    ids.tracked = await send({ TrackOpens: true, TrackLinks: 'HtmlOnly' });
    ids.bounced = await send({ To: 'gone@example.net' });
    ids.complained = await send({ MessageStream: 'broadcast' });
    ids.deferred = await send({ To: 'later@example.net' });
    await s.drain();
    await hit(openUrl(s.ctx, { messageId: ids.tracked, recipient: 'reader@example.net' }));
    await hit(clickUrl(s.ctx, { messageId: ids.tracked, recipient: 'reader@example.net', link: 'https://example.org/a', location: 'HTML' }));
    const rcpt = await s.ctx.db.selectFrom('message_recipients').select(['id', 'email']).where('message_id', '=', ids.complained).executeTakeFirstOrThrow();
    const verp = encodeVerp(s.ctx.secrets, { messageId: ids.complained, recipientId: rcpt.id }, s.config.returnPathDomain);
    const arf = loadFixture('arf-yahoo-abuse.eml', { recipient: rcpt.email, verp, messageId: ids.complained });
    assert.ok((await deliverReport(s, verp, arf)).ok);
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('uses only the hosted event types, each with its documented Details fields, all strings', async () => {
    for (const id of Object.values(ids)) {
      for (const e of await events(id)) {
        assert.ok(HOSTED_TYPES.includes(e.Type), `${e.Type} is not a hosted event type`);
        assert.match(e.Recipient, /^[^@\s]+@[^@\s]+$/, 'every event names its recipient');
        assert.ok(!Number.isNaN(Date.parse(e.ReceivedAt)));
        assert.deepEqual(Object.keys(e.Details).sort(), FIELDS[e.Type], e.Type);
        for (const [k, v] of Object.entries(e.Details)) assert.equal(typeof v, 'string', `${e.Type}.Details.${k}`);
      }
    }
  });

  it('leaves Processed out: the processing time is the record\'s ReceivedAt', async () => {
    const r = await s.request('GET', `/messages/outbound/${ids.tracked}/details`);
    assert.deepEqual(r.body.MessageEvents.map((e: Event) => e.Type), ['Delivered', 'Opened', 'LinkClicked']);
    assert.equal(typeof r.body.ReceivedAt, 'string');
    const [delivered, opened, clicked] = r.body.MessageEvents as Event[];
    assert.match(String(delivered!.Details.DeliveryMessage), /^smtp;250/);
    assert.equal(delivered!.Details.DestinationIP, '127.0.0.1');
    assert.match(String(opened!.Details.Summary), /Chrome/);
    assert.equal(clicked!.Details.Link, 'https://example.org/a');
    assert.equal(clicked!.Details.ClickLocation, 'HTML');
  });

  it('gives a bounce its BounceID as a string, the ID GET /bounces knows', async () => {
    const bounce = await bounceOf(ids.bounced);
    const evs = await events(ids.bounced);
    const bounced = evs.find((e) => e.Type === 'Bounced')!;
    assert.equal(bounced.Details.BounceID, String(bounce.ID));
    assert.equal((await s.request('GET', `/bounces/${bounced.Details.BounceID}`)).body.ID, bounce.ID);
    const changed = evs.find((e) => e.Type === 'SubscriptionChanged')!;
    assert.deepEqual(changed.Details, { Origin: 'Recipient', SuppressSending: 'True', SuppressionReason: 'HardBounce' });
  });

  it('gives a deferral a Transient event with the delivery fields of the published example', async () => {
    const evs = await events(ids.deferred!);
    assert.deepEqual(evs.map((e) => e.Type), ['Transient']);
    assert.match(String(evs[0]!.Details.DeliveryMessage), /^smtp;452 /);
    assert.equal(evs[0]!.Details.DestinationIP, '127.0.0.1');
    assert.equal(evs[0]!.Recipient, 'later@example.net');
  });

  it('shows a spam complaint as a Bounced event of the SpamComplaint bounce', async () => {
    const bounce = await bounceOf(ids.complained);
    assert.equal(bounce.Type, 'SpamComplaint');
    const evs = await events(ids.complained);
    assert.deepEqual(evs.map((e) => e.Type), ['Delivered', 'Bounced', 'SubscriptionChanged']);
    assert.equal(evs[1]!.Details.BounceID, String(bounce.ID));
    assert.equal(evs[2]!.Details.SuppressionReason, 'SpamComplaint');
  });

  it('keeps the fuller timeline in the console: Processed and the complaint by name', async () => {
    await addUsers(s);
    const c = new ConsoleClient(s);
    assert.equal((await c.signIn(ADMIN)).status, 303);
    const page = await c.get(`/console/s/${s.serverId}/messages/${ids.complained}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /event-processed/);
    assert.match(page.text, /Spam complaint/);
  });
});
