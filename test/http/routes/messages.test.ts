import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'sender@example.com';

describe('GET /messages (search, details, dump)', () => {
  let s: TestService;
  let otherToken: string;
  const ids: Record<string, string> = {};
  const get = (path: string, token?: string) => s.request('GET', path, { token });
  const send = async (at: string, body: Record<string, unknown>, token?: string) => {
    s.clock.freeze(at);
    const r = await s.request('POST', '/email', { body: { From: FROM, Subject: 'Hello', HtmlBody: '<p>Hi</p>', ...body }, token });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const search = async (query: string, token?: string) => {
    const r = await get(`/messages?count=500&offset=0&${query}`, token);
    assert.equal(r.status, 200, r.text);
    return r.body as { TotalCount: number; Messages: any[] };
  };
  const found = async (query: string) => (await search(query)).Messages.map((m) => m.MessageID);

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await addConfirmedSender(s, 'billing@example.com');
    otherToken = (await createServer(s.ctx.db, { accountId: s.accountId, name: 'Other' }, s.clock.now())).token;
    // Around Moscow midnight between 9 and 10 March 2026 (MSK = UTC+3): 23:59 and 00:01.
    ids.beforeMidnight = await send('2026-03-09T20:59:00Z', { To: 'ann@example.net', Tag: 'welcome', Subject: 'Welcome aboard' });
    ids.afterMidnight = await send('2026-03-09T21:01:00Z', {
      To: '"Bob B" <bob@example.net>',
      Cc: 'Carol@Example.NET',
      Bcc: 'dan@example.org',
      Tag: 'invoice',
      Subject: 'Your invoice 100%',
      Metadata: { customer: 'c-42', Plan: 'Pro' },
      TextBody: 'Plain text',
      Attachments: [{ Name: 'invoice.pdf', Content: Buffer.from('%PDF-1.4').toString('base64'), ContentType: 'application/pdf' }],
    });
    ids.billing = await send('2026-03-10T09:00:00Z', { From: 'Billing <billing@example.com>', To: 'ann@example.net', Tag: 'invoice', Metadata: { customer: 'c-7' } });
    ids.broadcast = await send('2026-03-10T10:00:00Z', { To: 'ann@example.net', MessageStream: 'broadcast' });
    ids.other = await send('2026-03-10T11:00:00Z', { To: 'ann@example.net', Tag: 'invoice' }, otherToken);
    s.clock.unfreeze();
  });
  after(() => s.close());

  it('lists a server\'s messages newest first with the record and hosted fields', async () => {
    const r = await search('');
    assert.equal(r.TotalCount, 3);
    assert.deepEqual(
      r.Messages.map((m) => m.MessageID),
      [ids.billing, ids.afterMidnight, ids.beforeMidnight],
    );
    const m = r.Messages[1];
    assert.equal(m.MessageStream, 'outbound');
    assert.equal(m.Tag, 'invoice');
    assert.equal(m.Subject, 'Your invoice 100%');
    assert.equal(m.From, FROM);
    assert.equal(m.Recipient, 'bob@example.net');
    assert.deepEqual(m.To, [{ Email: 'bob@example.net', Name: 'Bob B' }]);
    assert.deepEqual(m.Cc, [{ Email: 'Carol@example.net', Name: '' }]);
    assert.deepEqual(m.Bcc, [{ Email: 'dan@example.org', Name: '' }]);
    assert.deepEqual(m.Recipients, ['bob@example.net', 'Carol@example.net', 'dan@example.org']);
    assert.deepEqual(m.Attachments, ['invoice.pdf']);
    assert.deepEqual(m.Metadata, { customer: 'c-42', Plan: 'Pro' });
    assert.equal(m.Status, 'Queued');
    assert.equal(m.ReceivedAt, '2026-03-09T21:01:00.000+00:00');
    assert.equal(typeof m.TrackOpens, 'boolean');
    assert.equal(m.TrackLinks, 'None');
  });

  it('filters by recipient in To, Cc or Bcc, by sender, tag, subject, status and metadata', async () => {
    assert.deepEqual(await found('recipient=bob@example.net'), [ids.afterMidnight]);
    assert.deepEqual(await found('recipient=carol@example.net'), [ids.afterMidnight]);
    assert.deepEqual(await found('Recipient=DAN@example.org'), [ids.afterMidnight]);
    assert.deepEqual(await found('recipient=ann@example.net'), [ids.billing, ids.beforeMidnight]);
    assert.deepEqual(await found('recipient=nobody@example.net'), []);
    assert.deepEqual(await found('fromemail=Billing@Example.com'), [ids.billing]);
    assert.deepEqual(await found('tag=invoice'), [ids.billing, ids.afterMidnight]);
    assert.deepEqual(await found('tag=Invoice'), []);
    assert.deepEqual(await found('subject=WELCOME'), [ids.beforeMidnight]);
    // LIKE wildcards in the filter match literally.
    assert.deepEqual(await found('subject=100%25'), [ids.afterMidnight]);
    assert.deepEqual(await found('subject=%25'), [ids.afterMidnight]);
    assert.deepEqual(await found('status=queued'), [ids.billing, ids.afterMidnight, ids.beforeMidnight]);
    assert.deepEqual(await found('status=sent'), []);
    assert.deepEqual(await found('status=processed'), [ids.billing, ids.afterMidnight, ids.beforeMidnight]);
    assert.deepEqual(await found('status=bounced'), []);
    // One recipient of a message bounces (as recordBounce marks it): the message is found as bounced, once.
    await s.ctx.db.updateTable('message_recipients').set({ status: 'Bounced' }).where('message_id', '=', ids.afterMidnight).where('kind', '!=', 'To').execute();
    assert.deepEqual(await found('status=Bounced'), [ids.afterMidnight]);
    assert.equal((await search('status=bounced&recipient=carol@example.net')).TotalCount, 1);
    assert.deepEqual(await found('status=bounced&recipient=ann@example.net'), []);
    assert.deepEqual(await found('status=bounced&tag=welcome'), []);
    assert.deepEqual(await found('metadata_customer=c-42'), [ids.afterMidnight]);
    assert.deepEqual(await found('metadata_Plan=Pro'), [ids.afterMidnight]);
    assert.deepEqual(await found('metadata_plan=Pro'), [], 'metadata keys keep their case');
    assert.deepEqual(await found('metadata_customer=c-42&tag=welcome'), []);
    assert.deepEqual(await found('messagestream=broadcast'), [ids.broadcast]);
    assert.deepEqual(await found('messageStream=broadcast&recipient=ann@example.net'), [ids.broadcast]);
    const bad = await get('/messages?count=10&offset=0&status=lost');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.ErrorCode, 700);
  });

  it('reads date filters in Moscow time, inclusive, at the minute before and after midnight', async () => {
    assert.deepEqual(await found('todate=2026-03-09'), [ids.beforeMidnight]);
    assert.deepEqual(await found('fromdate=2026-03-10'), [ids.billing, ids.afterMidnight]);
    assert.deepEqual(await found('fromdate=2026-03-09&todate=2026-03-09'), [ids.beforeMidnight]);
    assert.deepEqual(await found('fromdate=2026-03-10&todate=2026-03-10&tag=invoice'), [ids.billing, ids.afterMidnight]);
    assert.deepEqual(await found('fromdate=2026-03-09T23:59:00&todate=2026-03-09T23:59:00'), [ids.beforeMidnight]);
    assert.deepEqual(await found('fromdate=2026-03-10T00:00:00&todate=2026-03-10T00:01:00'), [ids.afterMidnight]);
    assert.deepEqual(await found('todate=2026-03-10T00:00:59'), [ids.beforeMidnight]);
    assert.deepEqual(await found('fromdate=2026-03-09T21:00:00Z&recipient=bob@example.net'), [ids.afterMidnight]);
    const bad = await get('/messages?count=10&offset=0&fromdate=2026-02-30');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.ErrorCode, 700);
  });

  it('pages with count and offset inside their limits', async () => {
    const p1 = await get('/messages?count=1&offset=0');
    const p2 = await get('/messages?count=1&offset=1');
    assert.equal(p1.body.TotalCount, 3);
    assert.deepEqual([p1.body.Messages[0].MessageID, p2.body.Messages[0].MessageID], [ids.billing, ids.afterMidnight]);
    assert.equal((await get('/messages?count=500&offset=9500')).status, 200);
    assert.equal((await get('/messages?count=1&offset=9999')).status, 200);
    for (const q of ['count=0&offset=0', 'count=501&offset=0', 'offset=0', 'count=10', 'count=x&offset=0', 'count=1&offset=-1', 'count=2&offset=9999', 'count=500&offset=9501']) {
      const r = await get(`/messages?${q}`);
      assert.equal(r.status, 422, q);
      assert.equal(typeof r.body.ErrorCode, 'number', q);
    }
    assert.equal((await s.request('GET', '/messages?count=1&offset=0', { token: null })).status, 401);
  });

  it('shows details with bodies and events, and the dump', async () => {
    const r = await get(`/messages/${ids.afterMidnight}/details`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.MessageID, ids.afterMidnight);
    assert.equal(r.body.HtmlBody, '<p>Hi</p>');
    assert.equal(r.body.TextBody, 'Plain text');
    assert.deepEqual(r.body.Attachments, ['invoice.pdf']);
    assert.ok(!JSON.stringify(r.body).includes(Buffer.from('%PDF-1.4').toString('base64')), 'no attachment content');
    const types = r.body.MessageEvents.map((e: any) => e.Type);
    // Processed is not one of the hosted service's event types: its time is the record's ReceivedAt.
    assert.ok(!types.includes('Processed'), JSON.stringify(types));
    for (const e of r.body.MessageEvents) assert.equal(typeof e.ReceivedAt, 'string');
    const dump = await get(`/messages/${ids.afterMidnight}/dump`);
    assert.equal(dump.status, 200);
    assert.match(dump.body.Body, new RegExp(`^Message-ID: <${ids.afterMidnight}@`, 'm'), 'composed from the stored message before delivery');
    // The hosted service's paths are aliases (each composition numbers its MIME boundaries afresh).
    assert.equal((await get(`/messages/outbound/${ids.afterMidnight}/details`)).body.MessageID, ids.afterMidnight);
    const boundaries = (t: string) => t.replace(/boundary="[^"]*"|^--\S+$/gm, 'B');
    assert.equal(boundaries((await get(`/messages/outbound/${ids.afterMidnight}/dump`)).body.Body), boundaries(dump.body.Body));
    assert.equal((await get('/messages/outbound?count=10&offset=0&tag=invoice')).body.TotalCount, 2);
  });

  it('keeps servers apart: another server\'s message is not found (701)', async () => {
    for (const path of [`/messages/${ids.other}/details`, `/messages/${ids.other}/dump`, `/messages/opens/${ids.other}?count=1&offset=0`, `/messages/clicks/${ids.other}?count=1&offset=0`, '/messages/no-such-id/details']) {
      const r = await get(path);
      assert.equal(r.status, 422, path);
      assert.equal(r.body.ErrorCode, 701, path);
    }
    assert.deepEqual((await search('tag=invoice', otherToken)).Messages.map((m) => m.MessageID), [ids.other]);
    assert.equal((await get(`/messages/${ids.beforeMidnight}/details`, otherToken)).body.ErrorCode, 701);
  });

  it("pages a recipient's messages, each message once even when the address is in To and Cc", async () => {
    const eve = [
      await send('2026-03-11T09:00:00Z', { To: 'eve@example.net', Cc: 'EVE@example.net' }),
      await send('2026-03-11T09:00:01Z', { To: 'eve@example.net', Tag: 'x' }),
      await send('2026-03-11T09:00:02Z', { To: 'zed@example.net', Bcc: 'Eve@Example.net' }),
    ];
    s.clock.unfreeze();
    const p1 = await get('/messages?count=2&offset=0&recipient=eve@example.net');
    const p2 = await get('/messages?count=2&offset=2&recipient=eve@example.net');
    assert.equal(p1.body.TotalCount, 3);
    assert.deepEqual([...p1.body.Messages, ...p2.body.Messages].map((m: any) => m.MessageID), [eve[2], eve[1], eve[0]]);
    assert.deepEqual(await found('recipient=eve@example.net&tag=x'), [eve[1]]);
    assert.deepEqual(await found('recipient=eve@example.net&todate=2026-03-11T12:00:00'), [eve[0]]);
  });
});
