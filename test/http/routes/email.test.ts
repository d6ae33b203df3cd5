import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender, addVerifiedDomain } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const sums = (b: Buffer) => ({ MD5: createHash('md5').update(b).digest('hex'), SHA1: createHash('sha1').update(b).digest('hex'), SHA256: createHash('sha256').update(b).digest('hex') });

const FROM = 'sender@example.com';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MB = 1024 * 1024;

describe('POST /email', () => {
  let s: TestService;
  const send = (body: unknown, headers?: Record<string, string>) => s.request('POST', '/email', { body, headers });
  const msg = (o: Record<string, unknown> = {}) => ({ From: FROM, To: 'to@example.net', Subject: 'Hi', HtmlBody: '<p>Hi</p>', ...o });
  const refused = async (body: unknown, code: number, status = 422) => {
    const r = await send(body);
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.ErrorCode, code, r.text);
    assert.equal(typeof r.body.Message, 'string');
    return r;
  };
  const count = async (table: 'messages' | 'jobs') => Number((await s.ctx.db.selectFrom(table).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
  });
  after(() => s.close());

  it('accepts a message and stores exactly what was sent, in one go', async () => {
    const body = msg({
      From: '"Sender, Inc." <Sender@Example.com>',
      To: '"Doe, Jane" <jane@example.net>, bob@Bücher.example',
      Cc: 'carol@example.net',
      Bcc: 'dave@other.example',
      Subject: 'Order 42',
      Tag: 'orders',
      TextBody: 'Hi there',
      ReplyTo: 'reply@example.com',
      Headers: [{ Name: 'X-Order', Value: '42' }],
      Metadata: { order: '42', color: 'blue' },
      TrackOpens: true,
      TrackLinks: 'htmlonly',
      Attachments: [
        { Name: 'a.txt', Content: Buffer.from('hello').toString('base64'), ContentType: 'text/plain' },
        { Name: 'logo.png', Content: 'iVBORw0K\r\nGgo=', ContentType: 'image/png', ContentID: 'cid:logo@x' },
      ],
    });
    const r = await send(body);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['ErrorCode', 'Message', 'MessageID', 'SubmittedAt', 'To']);
    assert.equal(r.body.ErrorCode, 0);
    assert.equal(r.body.Message, 'OK');
    assert.equal(r.body.To, body.To);
    assert.match(r.body.MessageID, UUID);
    assert.match(r.body.SubmittedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    const id = r.body.MessageID;

    const m = await s.ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(m.server_id, s.serverId);
    assert.equal(m.stream_id, 'outbound');
    assert.equal(m.from_email, 'sender@example.com');
    assert.equal(m.from_raw, body.From);
    assert.equal(m.subject, 'Order 42');
    assert.equal(m.tag, 'orders');
    assert.equal(m.html_body, '<p>Hi</p>');
    assert.equal(m.text_body, 'Hi there');
    assert.equal(m.reply_to, 'reply@example.com');
    assert.deepEqual(JSON.parse(m.headers), [{ Name: 'X-Order', Value: '42' }]);
    assert.deepEqual(JSON.parse(m.metadata), { order: '42', color: 'blue' });
    assert.equal(m.track_opens, 1);
    assert.equal(m.track_links, 'HtmlOnly');
    assert.equal(m.status, 'Queued');
    assert.equal(m.sandbox, 0);
    assert.equal(new Date(r.body.SubmittedAt).getTime(), m.received_at);
    // UUID version 7: the first 48 bits are the acceptance time in milliseconds.
    assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), m.received_at);
    assert.deepEqual(JSON.parse(m.attachments), [
      // The checksums of the decoded content stay when the content is dropped (Mailpit's API lists them).
      { Name: 'a.txt', ContentType: 'text/plain', ContentID: null, ContentLength: 5, Checksums: sums(Buffer.from('hello')) },
      { Name: 'logo.png', ContentType: 'image/png', ContentID: 'logo@x', ContentLength: 8, Checksums: sums(Buffer.from('iVBORw0KGgo=', 'base64')) },
    ]);

    const rcpts = await s.ctx.db.selectFrom('message_recipients').select(['kind', 'email', 'name', 'status', 'server_id']).where('message_id', '=', id).orderBy('id').execute();
    assert.deepEqual(rcpts, [
      { kind: 'To', email: 'jane@example.net', name: 'Doe, Jane', status: 'Queued', server_id: s.serverId },
      { kind: 'To', email: 'bob@xn--bcher-kva.example', name: '', status: 'Queued', server_id: s.serverId },
      { kind: 'Cc', email: 'carol@example.net', name: '', status: 'Queued', server_id: s.serverId },
      { kind: 'Bcc', email: 'dave@other.example', name: '', status: 'Queued', server_id: s.serverId },
    ]);
    const atts = await s.ctx.db.selectFrom('message_attachments').selectAll().where('message_id', '=', id).orderBy('position').execute();
    assert.equal(atts.length, 2);
    assert.equal(Buffer.from(atts[0].content!, 'base64').toString(), 'hello');
    assert.equal(atts[1].content, 'iVBORw0KGgo=');
    assert.equal(atts[1].content_id, 'logo@x');

    const events = await s.ctx.db.selectFrom('message_events').selectAll().where('message_id', '=', id).execute();
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'Processed');
    assert.equal(events[0].occurred_at, m.received_at);

    const jobs = await s.ctx.db.selectFrom('jobs').select(['queue', 'payload', 'group_key']).where('payload', 'like', `%${id}%`).orderBy('group_key').execute();
    assert.deepEqual(
      jobs.map((j) => [j.queue, j.group_key, JSON.parse(j.payload).domain]),
      [
        ['deliver', 'example.net', 'example.net'],
        ['deliver', 'other.example', 'other.example'],
        ['deliver', 'xn--bcher-kva.example', 'xn--bcher-kva.example'],
      ],
    );
  });

  it('takes TrackOpens/TrackLinks from the server unless the message says', async () => {
    await s.ctx.db.updateTable('servers').set({ track_opens: 1, track_links: 'TextOnly' }).where('id', '=', s.serverId).execute();
    const stored = async (o: Record<string, unknown>) => {
      const r = await send(msg(o));
      assert.equal(r.status, 200, r.text);
      return s.ctx.db.selectFrom('messages').select(['track_opens', 'track_links']).where('id', '=', r.body.MessageID).executeTakeFirstOrThrow();
    };
    assert.deepEqual(await stored({}), { track_opens: 1, track_links: 'TextOnly' });
    assert.deepEqual(await stored({ TrackOpens: null, TrackLinks: null }), { track_opens: 1, track_links: 'TextOnly' });
    assert.deepEqual(await stored({ TrackOpens: false, TrackLinks: 'NONE' }), { track_opens: 0, track_links: 'None' });
    assert.deepEqual(await stored({ TrackLinks: true }), { track_opens: 1, track_links: 'HtmlAndText' });
    assert.deepEqual(await stored({ TrackLinks: false }), { track_opens: 1, track_links: 'None' });
    assert.deepEqual(await stored({ TrackLinks: 'htmlAndText' }), { track_opens: 1, track_links: 'HtmlAndText' });
    await s.ctx.db.updateTable('servers').set({ track_opens: 0, track_links: 'None' }).where('id', '=', s.serverId).execute();
    await refused(msg({ TrackLinks: 'Sometimes' }), 300);
    await refused(msg({ TrackOpens: 'yes' }), 300);
  });

  it('needs a confirmed sender signature or a DKIM-verified domain for From', async () => {
    const r = await refused(msg({ From: 'nobody@unknown.example' }), 400);
    assert.match(r.body.Message, /nobody@unknown\.example/);
    await addConfirmedSender(s, 'pending@example.org', { confirmed: false });
    await refused(msg({ From: 'pending@example.org' }), 401);
    await addVerifiedDomain(s, 'verified.example');
    assert.equal((await send(msg({ From: 'Anyone <anyone@VERIFIED.example>' }))).status, 200);
    // Display name forms and case of the address do not matter.
    assert.equal((await send(msg({ From: 'The Sender <SENDER@example.com>' }))).status, 200);
    // Another account's signature authorizes nothing here.
    const other = await s.ctx.db.insertInto('accounts').values({ name: 'other', created_at: 0 }).returning('id').executeTakeFirstOrThrow();
    const dom = await s.ctx.db.insertInto('domains').values({ account_id: other.id, name: 'elsewhere.example', dkim_verified: 1, created_at: 0 }).returning('id').executeTakeFirstOrThrow();
    await s.ctx.db.insertInto('sender_signatures').values({ account_id: other.id, domain_id: dom.id, email: 'x@elsewhere.example', name: 'x', confirmed: 1, created_at: 0 }).execute();
    await refused(msg({ From: 'x@elsewhere.example' }), 400);
  });

  it('counts From, Subject and Tag in UTF-16 code units, at and over each limit', async () => {
    const fromAt = `"${'n'.repeat(255 - FROM.length - 5)}" <${FROM}>`;
    assert.equal(fromAt.length, 255);
    assert.equal((await send(msg({ From: fromAt }))).status, 200);
    await refused(msg({ From: `"${'n'.repeat(255 - FROM.length - 4)}" <${FROM}>` }), 300);
    // An astral character (outside the BMP) counts 2.
    const astral = '😀'.repeat(1000);
    assert.equal(astral.length, 2000);
    const ok = await send(msg({ Subject: astral }));
    assert.equal(ok.status, 200, ok.text);
    const row = await s.ctx.db.selectFrom('messages').select('subject').where('id', '=', ok.body.MessageID).executeTakeFirstOrThrow();
    assert.equal(row.subject, astral);
    await refused(msg({ Subject: `${astral}x` }), 300);
    await refused(msg({ Subject: `${'a'.repeat(1999)}😀` }), 300);
    assert.equal((await send(msg({ Tag: 't'.repeat(1000) }))).status, 200);
    await refused(msg({ Tag: 't'.repeat(1001) }), 300);
    await refused(msg({ Tag: '😀'.repeat(500) + 'x' }), 300);
  });

  it('allows 50 recipients across To, Cc and Bcc, not 51', async () => {
    const addrs = (n: number, p: string) => Array.from({ length: n }, (_, i) => `"R, ${i}" <${p}${i}@example.net>`).join(', ');
    const r = await send(msg({ To: addrs(30, 't'), Cc: addrs(10, 'c'), Bcc: addrs(10, 'b') }));
    assert.equal(r.status, 200, r.text);
    const n = await s.ctx.db.selectFrom('message_recipients').select((e) => e.fn.countAll().as('n')).where('message_id', '=', r.body.MessageID).executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 50);
    await refused(msg({ To: addrs(30, 't'), Cc: addrs(10, 'c'), Bcc: addrs(11, 'b') }), 300);
  });

  it('refuses bad addresses and a missing To', async () => {
    for (const To of ['', ' , ', 'not-an-address', 'a@b', 'Smith, John <j@example.net>', 'x@example.net\r\nBcc: evil@example.net']) {
      await refused(msg({ To }), 300);
    }
    await refused(msg({ To: undefined }), 300);
    await refused(msg({ Cc: 'bad@' }), 300);
    await refused(msg({ ReplyTo: 'bad' }), 300);
    await refused(msg({ From: 'a@example.com, b@example.com' }), 300);
  });

  it('needs a body, and takes each body up to 5 MB', async () => {
    await refused(msg({ HtmlBody: undefined }), 300);
    await refused(msg({ HtmlBody: '', TextBody: null }), 300);
    const atLimit = 'x'.repeat(5 * MB);
    assert.equal((await send(msg({ HtmlBody: atLimit }))).status, 200);
    await refused(msg({ HtmlBody: `${atLimit}x` }), 300);
    // 5 MB counts UTF-8 bytes: 'é' is 2.
    await refused(msg({ HtmlBody: undefined, TextBody: 'é'.repeat(5 * MB / 2) + 'x' }), 300);
  });

  it('takes a whole message up to 10 MB after base64, and answers 413 beyond', async () => {
    const base = msg({ HtmlBody: undefined, TextBody: 'x', Subject: '' });
    const fixed = Buffer.byteLength(base.From) + Buffer.byteLength(base.To) + 1 + 'big.bin.txt'.length;
    const content = 'A'.repeat(10 * MB - fixed - ((10 * MB - fixed) % 4));
    const pad = 10 * MB - fixed - content.length;
    const at = { ...base, TextBody: 'x'.repeat(1 + pad), Attachments: [{ Name: 'big.bin.txt', Content: content, ContentType: 'application/octet-stream' }] };
    // 'big.bin.txt' is refused for its .bin part: use an innocent name of the same length.
    at.Attachments[0].Name = 'big.dat.txt';
    const r = await send(at);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const over = { ...at, TextBody: `${at.TextBody}x` };
    const o = await refused(over, 300, 413);
    assert.match(o.body.Message, /10 MB/);
  });

  it('refuses forbidden attachment types, however the name is dressed', async () => {
    const att = (Name: string, Content = 'aGk=') => msg({ Attachments: [{ Name, Content, ContentType: 'application/octet-stream' }] });
    for (const name of ['run.exe', 'RUN.EXE', 'run.Exe.', 'run.exe . .', 'run.exe  ', 'invoice.pdf.exe', 'setup.exe.txt', 'x.scr', 'x.vbs', 'x.mst']) {
      await refused(att(name), 411);
    }
    for (const name of ['report.pdf', 'exe', 'notes.executive.txt', 'archive.tar.gz']) {
      assert.equal((await send(att(name))).status, 200, name);
    }
    for (const content of ['not base64!', 'aGk', 'a===', 'aGk=aGk=']) await refused(att('a.txt', content), 300);
    await refused(msg({ Attachments: [{ Name: 'a.txt' }] }), 300);
    await refused(msg({ Attachments: [{ Content: 'aGk=' }] }), 300);
    await refused(msg({ Attachments: [{ Name: 'a.txt', Content: 'aGk=', ContentType: 'text/plain\r\nX-Evil: 1' }] }), 300);
    await refused(msg({ Attachments: [{ Name: 'a\r\n.txt', Content: 'aGk=' }] }), 300);
    await refused(msg({ Attachments: 'file' }), 300);
    assert.equal((await send(msg({ Attachments: [] }))).status, 200);
  });

  it('refuses header injection and headers mailroom writes itself', async () => {
    const h = (Name: unknown, Value: unknown) => msg({ Headers: [{ Name, Value }] });
    await refused(h('X-Test', 'a\r\nBcc: evil@example.net'), 300);
    await refused(h('X-Test', 'a\nb'), 300);
    await refused(h('X Test', 'a'), 300);
    await refused(h('X-Test:', 'a'), 300);
    await refused(h('X-Tést', 'a'), 300);
    await refused(h('', 'a'), 300);
    await refused(h('X-Test', 5), 300);
    // Date, Message-ID and the MIME headers a mail library writes are accepted and replaced (headers.test.ts).
    for (const name of ['From', 'to', 'CC', 'Bcc', 'Subject', 'Return-Path', 'DKIM-Signature', 'Reply-To', 'Sender', 'Received', 'ARC-Seal']) {
      const r = await refused(h(name, 'x'), 300);
      assert.match(r.body.Message, new RegExp(name, 'i'));
    }
    await refused(msg({ Subject: 'Hi\r\nBcc: evil@example.net' }), 300);
    await refused(msg({ Tag: 'a\nb' }), 300);
    assert.equal((await send(h('X-Campaign', 'spring; tab\tok'))).status, 200);
  });

  it('checks Metadata', async () => {
    await refused(msg({ Metadata: { n: 5 } }), 300);
    await refused(msg({ Metadata: ['a'] }), 300);
    await refused(msg({ Metadata: { ['k'.repeat(21)]: 'v' } }), 300);
    await refused(msg({ Metadata: { k: 'v'.repeat(81) } }), 300);
    await refused(msg({ Metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) }), 300);
    assert.equal((await send(msg({ Metadata: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v'.repeat(80)])) }))).status, 200);
    const r = await s.request('POST', '/email', { raw: JSON.stringify(msg()).replace(/}$/, ',"Metadata":{"__proto__":"x","a":"b"}}') });
    assert.equal(r.status, 200, r.text);
    const m = await s.ctx.db.selectFrom('messages').select('metadata').where('id', '=', r.body.MessageID).executeTakeFirstOrThrow();
    assert.equal(m.metadata, '{"__proto__":"x","a":"b"}');
  });

  it('sends through existing sending streams only', async () => {
    await refused(msg({ MessageStream: 'nope' }), 1235);
    await refused(msg({ MessageStream: 'inbound' }), 1236);
    await refused(msg({ MessageStream: 'x'.repeat(5000) }), 1235);
    const b = await send(msg({ MessageStream: 'broadcast' }));
    assert.equal(b.status, 200);
    await s.ctx.db.insertInto('message_streams').values({ server_id: s.serverId, id: 'old', name: 'Old', type: 'Transactional', created_at: 0, archived_at: 1 }).execute();
    await refused(msg({ MessageStream: 'old' }), 1236);
  });

  it('refuses inactive recipients of the stream with 406, naming them', async () => {
    await s.ctx.db
      .insertInto('suppressions')
      .values([
        { server_id: s.serverId, stream_id: 'outbound', email: 'gone@example.net', reason: 'HardBounce', origin: 'Recipient', created_at: 0 },
        { server_id: s.serverId, stream_id: 'outbound', email: 'spam@example.net', reason: 'SpamComplaint', origin: 'Recipient', created_at: 0 },
      ])
      .execute();
    const before = await count('messages');
    const r = await refused(msg({ To: 'ok@example.net, Gone@EXAMPLE.net', Bcc: 'spam@example.net' }), 406);
    assert.match(r.body.Message, /Found inactive addresses: Gone@EXAMPLE\.net, spam@example\.net\. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression\./);
    assert.equal(await count('messages'), before);
    // The suppression belongs to its stream only.
    assert.equal((await send(msg({ To: 'gone@example.net', MessageStream: 'broadcast' }))).status, 200);
  });

  it('renders TemplateModel into Subject and bodies', async () => {
    const r = await send(msg({ Subject: 'Hi {{name}}', HtmlBody: '<p>{{name}}</p>', TextBody: 'Dear {{name}}', TemplateModel: { name: 'Ann & Bo' } }));
    assert.equal(r.status, 200, r.text);
    const m = await s.ctx.db.selectFrom('messages').select(['subject', 'html_body', 'text_body']).where('id', '=', r.body.MessageID).executeTakeFirstOrThrow();
    assert.match(m.subject, /^Hi Ann /);
    assert.equal(m.html_body, '<p>Ann &amp; Bo</p>');
    assert.match(m.text_body!, /^Dear Ann /);
    await refused(msg({ Subject: 'Hi {{#name}}', TemplateModel: { name: 'x' } }), 1122);
    await refused(msg({ TemplateModel: 'x' }), 300);
  });

  it('answers hostile input with clear 4xx and stores nothing', async () => {
    const before = await count('messages');
    const raw = (text: string, headers?: Record<string, string>) => s.request('POST', '/email', { raw: text, headers });
    let r = await raw('{"From": "sender@example.com", "To": ');
    assert.equal(r.status, 422);
    assert.equal(r.body.ErrorCode, 402);
    r = await raw('{"From":"sender@example.com","To":"a@example.net","HtmlBody":"\\ud800"}');
    assert.equal(r.body.ErrorCode, 402);
    r = await raw('{"From":"sender@example.com","To":"a@example.net","HtmlBody":"a\\u0000b"}');
    assert.equal(r.body.ErrorCode, 402);
    r = await raw('');
    assert.equal(r.status, 422);
    assert.equal(r.body.ErrorCode, 300);
    r = await raw('From=a', { 'content-type': 'text/plain' });
    assert.equal(r.status, 415);
    for (const body of [[], [msg()], 'text', 42, null, msg({ To: 5 }), msg({ From: ['a'] }), msg({ Subject: {} }), msg({ HtmlBody: 1 }), msg({ Headers: 'x' }), msg({ Headers: [null] }), msg({ MessageStream: true }), msg({ From: 'x'.repeat(100_000) })]) {
      await refused(body, 300);
    }
    assert.equal(await count('messages'), before);
  });

  it('needs the server token', async () => {
    const r = await s.request('POST', '/email', { body: msg(), token: null });
    assert.equal(r.status, 401);
    const a = await s.request('POST', '/email', { body: msg(), accountToken: s.accountToken });
    assert.equal(a.status, 401);
  });
});
