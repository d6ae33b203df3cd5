import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { FROM, sendOne } from '../../domain/inbound/helpers.js';

describe('bounce API', () => {
  let s: TestService;
  let sink: SmtpSink;
  let otherToken: string;
  const ids: Record<string, number> = {};
  const msgs: Record<string, string> = {};
  const DAY = 86_400_000;
  const T0 = Date.parse('2026-03-10T12:00:00Z');

  // Seeds bounces the way the intake records them, at chosen times.
  const bounce = async (name: string, to: string, type: string, at: number, extra: Record<string, unknown> = {}) => {
    const m = await sendOne(s, to, extra);
    msgs[name] = m.messageId;
    const r = await s.ctx.db.transaction().execute((trx) =>
      recordBounce(trx, s.ctx, { messageId: m.messageId, email: m.recipient, type, details: `details of ${name}`, bouncedAt: at, dump: type === 'Transient' ? null : `raw ${name}`, recipientId: m.recipientId }),
    );
    ids[name] = r!.bounceId;
  };

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
    await bounce('hard', 'hard@dest.example', 'HardBounce', T0, { Tag: 'welcome' });
    await bounce('soft', 'soft@dest.example', 'SoftBounce', T0 + DAY);
    await bounce('spam', 'spam@other.example', 'SpamComplaint', T0 + 2 * DAY);
    await bounce('delay', 'slow@dest.example', 'Transient', T0 + 3 * DAY, { MessageStream: 'broadcast' });
    const other = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Other' }, s.clock.now()));
    otherToken = other.token;
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  const list = (q: string, token?: string) => s.request('GET', `/bounces?${q}`, { token });
  const listIds = async (q: string) => {
    const r = await list(q);
    assert.equal(r.status, 200, r.text);
    return r.body.Bounces.map((b: { ID: number }) => b.ID);
  };

  it('lists newest first with TotalCount and the published fields', async () => {
    const r = await list('count=2&offset=0');
    assert.equal(r.body.TotalCount, 4);
    assert.deepEqual(r.body.Bounces.map((b: any) => b.ID), [ids.delay, ids.spam]);
    const hard = (await list('count=10&offset=3')).body.Bounces[0];
    for (const k of ['RecordType', 'ID', 'Type', 'TypeCode', 'Name', 'Tag', 'MessageID', 'ServerID', 'MessageStream', 'Description', 'Details', 'Email', 'From', 'BouncedAt', 'DumpAvailable', 'Inactive', 'CanActivate', 'Subject']) {
      assert.ok(k in hard, k);
    }
    assert.equal(hard.ID, ids.hard);
    assert.equal(hard.Name, 'Hard bounce');
    assert.equal(hard.Tag, 'welcome');
    assert.equal(hard.ServerID, s.serverId);
    assert.equal(hard.BouncedAt, '2026-03-10T12:00:00.000+00:00');
  });

  it('filters by type, inactive, emailFilter, tag, messageID, stream and Moscow-time dates', async () => {
    assert.deepEqual(await listIds('count=10&offset=0&type=HardBounce'), [ids.hard]);
    assert.deepEqual(await listIds('count=10&offset=0&type=spamcomplaint'), [ids.spam]);
    assert.deepEqual(await listIds('count=10&offset=0&inactive=true'), [ids.spam, ids.hard]);
    assert.deepEqual(await listIds('count=10&offset=0&inactive=false'), [ids.delay, ids.soft]);
    assert.deepEqual(await listIds('count=10&offset=0&emailFilter=OTHER.example'), [ids.spam]);
    assert.deepEqual(await listIds('count=10&offset=0&tag=welcome'), [ids.hard]);
    assert.deepEqual(await listIds(`count=10&offset=0&messageID=${msgs.soft}`), [ids.soft]);
    assert.deepEqual(await listIds('count=10&offset=0&messagestream=broadcast'), [ids.delay]);
    // 2026-03-11 in Moscow runs from 2026-03-10T21:00Z to 2026-03-11T20:59:59.999Z: only the soft bounce.
    assert.deepEqual(await listIds('count=10&offset=0&fromdate=2026-03-11&todate=2026-03-11'), [ids.soft]);
    assert.deepEqual(await listIds('count=10&offset=0&fromdate=2026-03-10T15:00:00'), [ids.delay, ids.spam, ids.soft, ids.hard]);
    assert.deepEqual(await listIds('count=10&offset=0&fromdate=2026-03-10T15:00:01'), [ids.delay, ids.spam, ids.soft]);
  });

  it('refuses bad queries with 1000, and pages no deeper than 10,000', async () => {
    for (const q of ['offset=0', 'count=0&offset=0', 'count=501&offset=0', 'count=10', 'count=10&offset=0&type=Nope', 'count=10&offset=0&fromdate=yesterday', 'count=10&offset=0&inactive=maybe']) {
      const r = await list(q);
      assert.equal(r.status, 422, `${q}: ${r.text}`);
      assert.equal(r.body.ErrorCode, 1000, q);
    }
    assert.equal((await list('count=500&offset=9500')).status, 200);
    assert.equal((await list('count=500&offset=9501')).body.ErrorCode, 1000);
  });

  it('shows one bounce with its content, and its dump (empty when none)', async () => {
    const one = await s.request('GET', `/bounces/${ids.hard}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.Content, 'raw hard');
    assert.deepEqual((await s.request('GET', `/bounces/${ids.hard}/dump`)).body, { Body: 'raw hard' });
    assert.deepEqual((await s.request('GET', `/bounces/${ids.delay}/dump`)).body, { Body: '' });
    assert.equal((await s.request('GET', `/bounces/${ids.delay}`)).body.DumpAvailable, false);
    for (const path of [`/bounces/999999`, `/bounces/999999/dump`]) {
      const r = await s.request('GET', path);
      assert.equal(r.status, 422);
      assert.equal(r.body.ErrorCode, 1001);
    }
    assert.equal((await s.request('GET', '/bounces/abc')).body.ErrorCode, 1002);
  });

  it("keeps each server's bounces to itself", async () => {
    const r = await list('count=10&offset=0', otherToken);
    assert.equal(r.status, 200);
    assert.equal(r.body.TotalCount, 0);
    assert.equal((await s.request('GET', `/bounces/${ids.hard}`, { token: otherToken })).body.ErrorCode, 1001);
    assert.equal((await s.request('PUT', `/bounces/${ids.hard}/activate`, { token: otherToken })).body.ErrorCode, 1001);
    assert.deepEqual((await s.request('GET', '/deliverystats', { token: otherToken })).body, { InactiveMails: 0, Bounces: [{ Name: 'All', Count: 0 }] });
  });

  it('answers /deliverystats with inactive addresses and counts per type', async () => {
    const r = await s.request('GET', '/deliverystats');
    assert.equal(r.status, 200);
    assert.equal(r.body.InactiveMails, 2);
    assert.deepEqual(r.body.Bounces[0], { Name: 'All', Count: 4 });
    assert.deepEqual(
      r.body.Bounces.slice(1).map((b: any) => [b.Type, b.Name, b.Count]),
      [
        ['HardBounce', 'Hard bounce', 1],
        ['SoftBounce', 'Soft bounce/Undeliverable', 1],
        ['SpamComplaint', 'Spam complaint', 1],
        ['Transient', 'Message delayed', 1],
      ],
    );
  });

  it('activates a hard bounce: the suppression goes, sending works again; complaints and soft bounces refuse', async () => {
    const refused = await s.request('POST', '/email', { body: { From: FROM, To: 'hard@dest.example', Subject: 'x', TextBody: 'x' } });
    assert.equal(refused.body.ErrorCode, 406);
    const r = await s.request('PUT', `/bounces/${ids.hard}/activate`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.Message, 'OK');
    assert.equal(r.body.Bounce.ID, ids.hard);
    assert.equal(r.body.Bounce.Inactive, false);
    const sup = await s.ctx.db.selectFrom('suppressions').select('id').where('email', '=', 'hard@dest.example').executeTakeFirst();
    assert.equal(sup, undefined);
    assert.equal((await s.request('POST', '/email', { body: { From: FROM, To: 'hard@dest.example', Subject: 'x', TextBody: 'x' } })).status, 200);
    // Activating again changes nothing and still answers OK.
    assert.equal((await s.request('PUT', `/bounces/${ids.hard}/activate`)).status, 200);
    for (const id of [ids.spam, ids.soft]) {
      const x = await s.request('PUT', `/bounces/${id}/activate`);
      assert.equal(x.status, 422);
      assert.equal(x.body.ErrorCode, 1003);
    }
    assert.equal((await s.request('PUT', '/bounces/999999/activate')).body.ErrorCode, 1001);
  });

  it('lists the bounces the delivery worker records for 5xx answers', async () => {
    sink.rcptReplies.set('gone@dest.example', { code: 550, message: '5.1.1 <gone@dest.example>: Recipient address rejected: User unknown' });
    const m = await sendOne(s, 'gone@dest.example');
    await s.drain();
    const [b] = (await list(`count=10&offset=0&messageID=${m.messageId}`)).body.Bounces;
    assert.equal(b?.Type, 'HardBounce');
    assert.equal(b.Email, 'gone@dest.example');
    assert.equal(b.Inactive, true);
    assert.match(b.Details, /User unknown/);
  });
});
