import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'sender@example.com';
const MB = 1024 * 1024;
const msg = (o: Record<string, unknown> = {}) => ({ From: FROM, To: 'to@example.net', Subject: 'Hi', HtmlBody: '<p>Hi</p>', ...o });

describe('POST /email/batch, Idempotency-Key, test token', () => {
  let s: TestService;
  const batch = (body: unknown, headers?: Record<string, string>) => s.request('POST', '/email/batch', { body, headers });
  const count = async (table: 'messages' | 'jobs' | 'message_events' | 'message_recipients') =>
    Number((await s.ctx.db.selectFrom(table).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await s.ctx.db.insertInto('suppressions').values({ server_id: s.serverId, stream_id: 'outbound', email: 'gone@example.net', reason: 'ManualSuppression', origin: 'Customer', created_at: 0 }).execute();
  });
  after(() => s.close());

  it('answers each item in input order and accepts the good ones beside the bad', async () => {
    const before = await count('messages');
    const r = await batch([
      msg({ To: 'a@example.net' }),
      msg({ To: 'gone@example.net' }),
      msg({ From: 'stranger@unknown.example' }),
      msg({ Attachments: [{ Name: 'x.exe', Content: 'aGk=' }] }),
      'not an object',
      msg({ Subject: 's'.repeat(2001) }),
      msg({ MessageStream: 'nope' }),
      msg({ TemplateModel: { a: 1 } }),
      msg({ To: 'b@example.net', Cc: 'c@other.example' }),
    ]);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.length, 9);
    assert.deepEqual(
      r.body.map((x: any) => x.ErrorCode),
      [0, 406, 400, 411, 300, 300, 1235, 300, 0],
    );
    for (const failed of r.body.filter((x: any) => x.ErrorCode !== 0)) assert.deepEqual(Object.keys(failed).sort(), ['ErrorCode', 'Message']);
    assert.match(r.body[1].Message, /Found inactive addresses: gone@example\.net\./);
    assert.equal(r.body[0].To, 'a@example.net');
    assert.equal(r.body[8].To, 'b@example.net');
    assert.equal(await count('messages'), before + 2);
    const ids = [r.body[0].MessageID, r.body[8].MessageID];
    const rows = await s.ctx.db.selectFrom('messages').select('id').where('id', 'in', ids).execute();
    assert.equal(rows.length, 2);
    const jobs = await s.ctx.db.selectFrom('jobs').select('payload').where('queue', '=', 'deliver').execute();
    assert.equal(jobs.filter((j) => ids.some((id) => j.payload.includes(id))).length, 3);
  });

  it('takes 500 messages in one transaction, refuses 501 with 410', async () => {
    const before = await count('messages');
    const many = Array.from({ length: 500 }, (_, i) => msg({ To: `r${i}@example.net`, Tag: 'bulk' }));
    const r = await batch(many);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 500);
    assert.ok(r.body.every((x: any) => x.ErrorCode === 0));
    assert.equal(new Set(r.body.map((x: any) => x.MessageID)).size, 500);
    assert.equal(new Set(r.body.map((x: any) => x.SubmittedAt)).size, 1);
    assert.equal(await count('messages'), before + 500);
    const tooMany = await batch([...many, msg()]);
    assert.equal(tooMany.status, 422);
    assert.equal(tooMany.body.ErrorCode, 410);
    assert.equal(await count('messages'), before + 500);
  });

  it('limits the batch request to 50 MB', async () => {
    const body = JSON.stringify([msg({ To: 'x' })]);
    const at = body + ' '.repeat(50 * MB - Buffer.byteLength(body));
    const r = await s.request('POST', '/email/batch', { raw: at });
    assert.equal(r.status, 200);
    assert.equal(r.body[0].ErrorCode, 300);
    const over = await s.request('POST', '/email/batch', { raw: `${at} ` });
    assert.equal(over.status, 413);
    assert.equal(over.body.ErrorCode, 300);
  });

  it('refuses a body that is not a list; an empty list answers an empty list', async () => {
    for (const body of [msg(), 'x', 5, null]) {
      const r = await batch(body);
      assert.equal(r.status, 422);
      assert.equal(r.body.ErrorCode, 300);
    }
    const empty = await batch([]);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, []);
    const broken = await s.request('POST', '/email/batch', { raw: '[{"From":' });
    assert.equal(broken.body.ErrorCode, 402);
    const huge = await batch([msg({ To: 'a'.repeat(2 * MB) }), msg({ To: `"${'q'.repeat(MB)}"@example.net` }), msg({ Cc: ','.repeat(MB) })]);
    assert.equal(huge.status, 200);
    assert.deepEqual(huge.body.map((x: any) => x.ErrorCode), [300, 300, 0]);
  });

  it('with an Idempotency-Key, answers a repeat with the first answer and stores nothing new', async () => {
    const key = { 'Idempotency-Key': 'order-77' };
    const first = await s.request('POST', '/email', { body: msg({ To: 'idem@example.net' }), headers: key });
    assert.equal(first.status, 200);
    const counts = [await count('messages'), await count('jobs'), await count('message_events')];
    const again = await s.request('POST', '/email', { body: msg({ To: 'idem@example.net' }), headers: key });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.deepEqual([await count('messages'), await count('jobs'), await count('message_events')], counts);
    // Concurrent repeats of a new key: one message.
    const k2 = { 'Idempotency-Key': 'order-78' };
    const all = await Promise.all(Array.from({ length: 5 }, () => s.request('POST', '/email', { body: msg({ To: 'idem2@example.net' }), headers: k2 })));
    assert.equal(new Set(all.map((r) => r.body.MessageID)).size, 1);
    assert.equal(await count('messages'), counts[0] + 1);
    // The same key for another request is refused; on another route too.
    const other = await s.request('POST', '/email', { body: msg({ To: 'else@example.net' }), headers: key });
    assert.equal(other.status, 422);
    assert.equal(other.body.ErrorCode, 300);
    const badKey = await s.request('POST', '/email', { body: msg(), headers: { 'Idempotency-Key': 'has space' } });
    assert.equal(badKey.status, 422);
    // A batch replays as a whole.
    const bk = { 'Idempotency-Key': 'batch-1' };
    const b1 = await batch([msg(), msg({ To: 'bad' })], bk);
    const b2 = await batch([msg(), msg({ To: 'bad' })], bk);
    assert.deepEqual(b2.body, b1.body);
    // After 24 hours the key is free again.
    const n = await count('messages');
    s.clock.advance(24 * 60 * 60 * 1000 + 1);
    const later = await s.request('POST', '/email', { body: msg({ To: 'idem@example.net' }), headers: key });
    assert.equal(later.status, 200);
    assert.notEqual(later.body.MessageID, first.body.MessageID);
    assert.equal(await count('messages'), n + 1);
  });

  it('gathers concurrent requests without mixing up their answers', async () => {
    const before = await count('messages');
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => s.request('POST', '/email', { body: msg({ To: `c${i}@example.net`, Subject: `n${i}` }) })));
    assert.ok(rs.every((r) => r.status === 200));
    for (let i = 0; i < rs.length; i++) {
      const m = await s.ctx.db.selectFrom('messages').select('subject').where('id', '=', rs[i].body.MessageID).executeTakeFirstOrThrow();
      assert.equal(m.subject, `n${i}`);
      assert.equal(rs[i].body.To, `c${i}@example.net`);
    }
    assert.equal(await count('messages'), before + 40);
  });

  it('the test token validates fully, answers like a real send and stores nothing', async () => {
    const counts = [await count('messages'), await count('jobs'), await count('message_events'), await count('message_recipients')];
    const test = { token: 'SERVICE_API_TEST' };
    const ok = await s.request('POST', '/email', { ...test, body: msg() });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.Message, 'Test job accepted');
    assert.equal(ok.body.ErrorCode, 0);
    assert.equal(ok.body.To, 'to@example.net');
    assert.match(ok.body.MessageID, /^[0-9a-f-]{36}$/);
    assert.equal((await s.request('POST', '/email', { ...test, body: msg({ Subject: 'x'.repeat(2001) }) })).body.ErrorCode, 300);
    assert.equal((await s.request('POST', '/email', { ...test, body: msg({ From: 'who@unknown.example' }) })).body.ErrorCode, 400);
    assert.equal((await s.request('POST', '/email', { ...test, body: msg({ To: 'gone@example.net' }) })).body.ErrorCode, 406);
    const b = await s.request('POST', '/email/batch', { ...test, body: [msg(), msg({ To: 'bad' })], headers: { 'Idempotency-Key': 'k' } });
    assert.deepEqual(b.body.map((x: any) => [x.ErrorCode, x.Message === 'Test job accepted']), [[0, true], [300, false]]);
    assert.deepEqual([await count('messages'), await count('jobs'), await count('message_events'), await count('message_recipients')], counts);
  });

  it('documents both routes in the OpenAPI description', async () => {
    const r = await s.request('GET', '/openapi.json', { token: null });
    assert.equal(r.status, 200);
    assert.ok(r.body.paths['/email'].post.requestBody);
    assert.ok(r.body.paths['/email/batch'].post.requestBody);
  });

  it('a Sandbox server stores the message as sent and queues no delivery', async () => {
    await s.ctx.db.updateTable('servers').set({ delivery_type: 'Sandbox' }).where('id', '=', s.serverId).execute();
    try {
      const jobs = await count('jobs');
      const r = await s.request('POST', '/email', { body: msg({ To: 'a@example.net, b@example.org' }) });
      assert.equal(r.status, 200);
      const m = await s.ctx.db.selectFrom('messages').select(['status', 'sandbox']).where('id', '=', r.body.MessageID).executeTakeFirstOrThrow();
      assert.deepEqual(m, { status: 'Sent', sandbox: 1 });
      const rc = await s.ctx.db.selectFrom('message_recipients').select(['status', 'settled_at']).where('message_id', '=', r.body.MessageID).execute();
      assert.ok(rc.length === 2 && rc.every((x) => x.status === 'Sent' && x.settled_at !== null));
      const ev = await s.ctx.db.selectFrom('message_events').select('type').where('message_id', '=', r.body.MessageID).execute();
      assert.deepEqual(ev, [{ type: 'Processed' }]);
      assert.equal(await count('jobs'), jobs);
    } finally {
      await s.ctx.db.updateTable('servers').set({ delivery_type: 'Live' }).where('id', '=', s.serverId).execute();
    }
  });
});
