// The Bulk API end to end (issue 25): one request becomes ordinary messages, personalized per recipient,
// each with the request's attachments, delivered to a real SMTP sink; inactive recipients skipped and
// counted; a worker that dies mid-expansion loses and duplicates nobody; transactional mail overtakes bulk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { claimJobs } from '../../../src/infra/jobs/claim.js';
import { expandPage } from '../../../src/domain/bulk/expand.js';
import { BULK_EXPAND_QUEUE } from '../../../src/domain/bulk/jobs.js';
import { finishBulkRequests } from '../../../src/domain/bulk/status.js';
import { formatStatus, statusReport } from '../../../src/domain/operations/status.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';

const recipients = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ To: `r${i}-${tag}@dest.example`, TemplateModel: { name: `Reader ${i}` } }));
const toOf = (raw: string) => /^To: (.*)$/m.exec(raw)?.[1] ?? '';

describe('bulk email', () => {
  let s: TestService;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DELIVERY_CONCURRENCY: '8' } });
    await addConfirmedSender(s, 'news@example.com');
  });
  after(async () => {
    await s.close();
    await sink.close();
  });
  const delivered = (tag: string) => sink.messages.filter((m) => m.to.some((t) => t.endsWith(`-${tag}@dest.example`)));

  it('personalizes every message, attaches the files to each, and reports progress to Completed', async () => {
    const res = await s.request('POST', '/email/bulk', {
      body: {
        From: 'news@example.com',
        Subject: 'Hello {{name}}',
        HtmlBody: '<p>Dear {{name}}, see {{{link}}}</p>',
        TextBody: 'Dear {{name}}',
        Tag: 'newsletter',
        Metadata: { campaign: 'c1' },
        Attachments: [{ Name: 'menu.txt', Content: Buffer.from('soup of the day').toString('base64'), ContentType: 'text/plain' }],
        Messages: [...recipients(3, 'p'), { To: 'cc-lead-p@dest.example', Cc: 'cc-copy-p@dest.example', TemplateModel: { name: 'Lead' }, Metadata: { row: '4' } }],
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.Status, 'Accepted');
    assert.match(res.body.SubmittedAt, /^\d{4}-/);
    // Both spellings of the request's ID: `Id` for the Node client, `ID` for the Python client (issue 27).
    assert.match(res.body.Id, /^[0-9a-f-]{36}$/);
    assert.equal(res.body.ID, res.body.Id);
    const first = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.deepEqual({ ...first.body, SubmittedAt: undefined }, { Id: res.body.Id, Status: 'Accepted', SubmittedAt: undefined, TotalMessages: 4, PercentageCompleted: 0, Subject: 'Hello {{name}}' });
    await s.drain();
    const got = delivered('p');
    assert.equal(got.length, 5, 'four messages, one with a Cc');
    for (const m of got) {
      const parsed = await PostalMime.parse(m.raw);
      const name = parsed.subject!.replace('Hello ', '');
      assert.match(parsed.text ?? '', new RegExp(`Dear ${name}`));
      assert.equal(parsed.attachments.length, 1);
      assert.equal(Buffer.from(parsed.attachments[0].content as ArrayBuffer).toString(), 'soup of the day');
      // A Broadcasts stream: one-click unsubscribe (RFC 8058).
      assert.match(m.raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    }
    assert.deepEqual(new Set(got.map((m) => toOf(m.raw)).filter((t) => t.startsWith('r'))), new Set(['r0-p@dest.example', 'r1-p@dest.example', 'r2-p@dest.example']));
    const done = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.equal(done.body.Status, 'Completed');
    assert.equal(done.body.PercentageCompleted, 100);
    // Ordinary messages: searchable, with the request's tag, merged metadata and the attachment listed.
    const search = await s.request('GET', '/messages/outbound?count=50&offset=0&messagestream=broadcast&recipient=cc-lead-p@dest.example');
    assert.equal(search.body.TotalCount, 1);
    const item = search.body.Messages[0];
    assert.equal(item.Tag, 'newsletter');
    assert.equal(item.MessageStream, 'broadcast');
    assert.deepEqual(item.Metadata, { campaign: 'c1', row: '4' });
    assert.equal(item.Attachments[0].Name ?? item.Attachments[0], 'menu.txt');
    // Content kept only until the last message was handed off.
    const stored = await s.ctx.db.selectFrom('bulk_attachments').select('content').where('bulk_id', '=', res.body.Id).execute();
    assert.deepEqual(stored, [{ content: null }]);
  });

  it('renders a stored template per recipient (TemplateAlias)', async () => {
    assert.equal((await s.request('POST', '/templates', { body: { Name: 'Bulk', Alias: 'bulk-t', Subject: 'Hi {{name}}', TextBody: 'Text for {{name}}' } })).status, 200);
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', TemplateAlias: 'bulk-t', Messages: recipients(2, 't') } });
    assert.equal(res.status, 200, res.text);
    await s.drain();
    const subjects = await Promise.all(delivered('t').map(async (m) => (await PostalMime.parse(m.raw)).subject));
    assert.deepEqual(subjects.sort(), ['Hi Reader 0', 'Hi Reader 1']);
    assert.equal((await s.request('GET', `/email/bulk/${res.body.Id}`)).body.Subject, 'Hi {{name}}');
  });

  it('fails the request, with its reason, when its template is deleted before expansion', async () => {
    assert.equal((await s.request('POST', '/templates', { body: { Name: 'Gone', Alias: 'gone-t', Subject: 'Hi', TextBody: 'x' } })).status, 200);
    const file = [{ Name: 'a.txt', Content: Buffer.from('a').toString('base64'), ContentType: 'text/plain' }];
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', TemplateAlias: 'gone-t', Attachments: file, Messages: recipients(2, 'f') } });
    assert.equal(res.status, 200, res.text);
    assert.equal((await s.request('DELETE', '/templates/gone-t')).status, 200);
    await s.drain();
    assert.equal(delivered('f').length, 0);
    const status = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.equal(status.body.Status, 'Failed');
    assert.match(status.body.FailureReason, /gone-t/);
    await finishBulkRequests(s.ctx, s.clock.now());
    const stored = await s.ctx.db.selectFrom('bulk_attachments').select('content').where('bulk_id', '=', res.body.Id).execute();
    assert.deepEqual(stored, [{ content: null }]);
  });

  it('skips and counts an inactive recipient, sending to the others', async () => {
    const sup = await s.request('POST', '/message-streams/broadcast/suppressions', { body: { Suppressions: [{ EmailAddress: 'r1-s@dest.example' }] } });
    assert.equal(sup.status, 200, sup.text);
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Messages: recipients(3, 's') } });
    assert.equal(res.status, 200, res.text);
    await s.drain();
    assert.deepEqual(delivered('s').map((m) => toOf(m.raw)).sort(), ['r0-s@dest.example', 'r2-s@dest.example']);
    const row = await s.ctx.db.selectFrom('bulk_requests').select(['compiled', 'skipped']).where('id', '=', res.body.Id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { compiled: 2, skipped: 1 });
    const status = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.deepEqual([status.body.Status, status.body.PercentageCompleted], ['Completed', 100]);
  });

  it('says which entry was left out, and why, when its bodies render to nothing', async () => {
    // Only the Subject is rendered for every entry at acceptance; an entry whose bodies come out empty is found
    // by the worker: left out, counted, and named in the request's reason (the console shows it).
    const res = await s.request('POST', '/email/bulk', {
      body: { From: 'news@example.com', Subject: 'x', HtmlBody: '{{body}}', Messages: [{ To: 'r0-e@dest.example', TemplateModel: { body: 'Hello' } }, { To: 'r1-e@dest.example' }] },
    });
    assert.equal(res.status, 200, res.text);
    await s.drain();
    assert.deepEqual(delivered('e').map((m) => toOf(m.raw)), ['r0-e@dest.example']);
    const row = await s.ctx.db.selectFrom('bulk_requests').select(['compiled', 'failed', 'reason']).where('id', '=', res.body.Id).executeTakeFirstOrThrow();
    assert.deepEqual([row.compiled, row.failed], [1, 1]);
    assert.match(row.reason ?? '', /^Messages\[1\] not compiled: .*HtmlBody/);
    const status = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.deepEqual([status.body.Status, status.body.PercentageCompleted, status.body.FailureReason], ['Completed', 100, undefined]);
  });

  it('is Completed as soon as its last message is handed off, without waiting for the bulk-finish round', async () => {
    // Read from the table, not through GET /email/bulk/{id} (which completes a finished request itself): what
    // the console, `mailroom status` and /metrics show. The test clock never reaches the 30 s task.
    const row = (id: string) => s.ctx.db.selectFrom('bulk_requests').select(['status', 'completed_at']).where('id', '=', id).executeTakeFirstOrThrow();
    const file = [{ Name: 'a.txt', Content: Buffer.from('a').toString('base64'), ContentType: 'text/plain' }];
    const t0 = s.clock.now();
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Attachments: file, Messages: recipients(30, 'c') } });
    assert.equal(res.status, 200, res.text);
    await s.drain();
    assert.equal(delivered('c').length, 30);
    await waitFor(async () => (await row(res.body.Id)).status === 'Completed', { timeoutMs: 5000, what: 'the request to be Completed' });
    assert.ok(Number((await row(res.body.Id)).completed_at) - t0 < 30_000, 'completed before the first bulk-finish round');
    const stored = await s.ctx.db.selectFrom('bulk_attachments').select('content').where('bulk_id', '=', res.body.Id).execute();
    assert.deepEqual(stored, [{ content: null }]);

    // Every recipient inactive: nothing to deliver, Completed when its last page is compiled.
    const sup = await s.request('POST', '/message-streams/broadcast/suppressions', { body: { Suppressions: [{ EmailAddress: 'r0-z@dest.example' }, { EmailAddress: 'r1-z@dest.example' }] } });
    assert.equal(sup.status, 200, sup.text);
    const none = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Messages: recipients(2, 'z') } });
    assert.equal(none.status, 200, none.text);
    await s.drain();
    assert.equal((await row(none.body.Id)).status, 'Completed');
  });

  it('refuses a bad entry, an unusable stream and an unknown or unconfirmed sender, storing nothing', async () => {
    const before = await s.ctx.db.selectFrom('bulk_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const bad = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Messages: [{ To: 'ok@dest.example' }, { To: 'not an address' }] } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.ErrorCode, 300);
    assert.match(bad.body.Message, /Messages\[1\]\.To/);
    const stream = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', MessageStream: 'outbound', Messages: [{ To: 'ok@dest.example' }] } });
    assert.equal(stream.body.ErrorCode, 1236, stream.text);
    const sender = await s.request('POST', '/email/bulk', { body: { From: 'who@else.example', Subject: 'x', TextBody: 'x', Messages: [{ To: 'ok@dest.example' }] } });
    assert.equal(sender.body.ErrorCode, 400, sender.text);
    await addConfirmedSender(s, 'pending@example.com', { confirmed: false });
    const unconfirmed = await s.request('POST', '/email/bulk', { body: { From: 'pending@example.com', Subject: 'x', TextBody: 'x', Messages: [{ To: 'ok@dest.example' }] } });
    assert.equal(unconfirmed.body.ErrorCode, 401, unconfirmed.text);
    const noStream = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', MessageStream: 'nope', Messages: [{ To: 'ok@dest.example' }] } });
    assert.equal(noStream.body.ErrorCode, 1235, noStream.text);
    const inbound = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', MessageStream: 'inbound', Messages: [{ To: 'ok@dest.example' }] } });
    assert.equal(inbound.body.ErrorCode, 1236, inbound.text);
    // What would make one entry's message invalid is refused now, naming the entry, not left out after a 200:
    // a line break rendered into its Subject (RFC 5322 2.2), or Metadata/Headers over one message's limits
    // once merged with the request's.
    const entries = (extra: Record<string, unknown>) => [{ To: 'ok@dest.example', TemplateModel: { name: 'Ann' } }, { To: 'two@dest.example', ...extra }];
    const broken = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'Hi {{name}}', TextBody: 'x', Messages: entries({ TemplateModel: { name: 'Bob\r\nBcc: all@else.example' } }) } });
    assert.equal(broken.status, 422, broken.text);
    assert.equal(broken.body.ErrorCode, 300);
    assert.match(broken.body.Message, /Messages\[1\]/);
    const tenFields = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v']));
    const meta = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Metadata: tenFields, Messages: entries({ Metadata: { row: '2' } }) } });
    assert.equal(meta.body.ErrorCode, 300, meta.text);
    assert.match(meta.body.Message, /Messages\[1\]\.Metadata/);
    const hundred = Array.from({ length: 100 }, (_, i) => ({ Name: `X-H${i}`, Value: 'v' }));
    const headers = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Headers: hundred, Messages: entries({ Headers: [{ Name: 'X-Own', Value: 'v' }] }) } });
    assert.equal(headers.body.ErrorCode, 300, headers.text);
    assert.match(headers.body.Message, /Messages\[1\]\.Headers/);
    const missing = await s.request('GET', '/email/bulk/0199a0a0-0000-7000-8000-000000000000');
    assert.equal(missing.status, 422);
    const after = await s.ctx.db.selectFrom('bulk_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  it('a worker dying mid-expansion loses and duplicates nobody (2,001 recipients, 5 pages in 2 jobs)', async () => {
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'Hi {{name}}', TextBody: 'x', Messages: recipients(2001, 'k') } });
    assert.equal(res.status, 200, res.text);
    // A worker claims both jobs (pages 0-3 and page 4) and compiles only the first before it is killed: the
    // other stays leased.
    // In page order: the order of the claimed rows is the database's (PostgreSQL's UPDATE ... RETURNING keeps none).
    const claimed = await claimJobs(s.ctx.database, { queues: [BULK_EXPAND_QUEUE], workerId: 'killed-worker', limit: 10, leaseMs: 60_000, now: s.clock.now() });
    const dead = claimed.sort((a, b) => JSON.parse(a.payload).page - JSON.parse(b.payload).page);
    assert.equal(dead.length, 2);
    assert.deepEqual(dead.map((j) => JSON.parse(j.payload)).map((p) => [p.page, p.pages]), [[0, 4], [4, 1]]);
    assert.ok(await expandPage(s.ctx, dead[0]));
    // Pages compiled a second time (their job run again by a worker whose lease had run out) add nothing.
    assert.equal(await expandPage(s.ctx, dead[0]), null);
    const mid = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.equal(mid.body.Status, 'Processing');
    // The leases run out; the surviving workers take the rest and deliver everything.
    s.clock.advance(61_000);
    await s.drain();
    const got = delivered('k').map((m) => toOf(m.raw));
    assert.equal(got.length, 2001);
    assert.equal(new Set(got).size, 2001, 'each recipient exactly once');
    assert.equal((await s.request('GET', `/email/bulk/${res.body.Id}`)).body.Status, 'Completed');
  });

  it('a transactional message sent during a big bulk send is delivered at once', async () => {
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Messages: recipients(120, 'o') } });
    assert.equal(res.status, 200, res.text);
    // Compile the bulk request first: 120 deliveries are queued before the transactional message exists.
    const pages = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', BULK_EXPAND_QUEUE).execute();
    for (const job of pages) await expandPage(s.ctx, job);
    s.clock.advance(1000);
    const reset = await s.request('POST', '/email', { body: { From: 'news@example.com', To: 'reset-o@dest.example', Subject: 'Password reset', TextBody: 'code 1234' } });
    assert.equal(reset.status, 200, reset.text);
    const start = sink.messages.length;
    await s.drain();
    const order = sink.messages.slice(start).map((m) => toOf(m.raw));
    assert.equal(order.length, 121);
    // The transactional queue has its own slots: the reset goes in the first round (8 slots), not after 120 bulk messages.
    assert.ok(order.indexOf('reset-o@dest.example') < 8, `reset delivered at position ${order.indexOf('reset-o@dest.example')}`);
  });

  it('counts requests by status and entries waiting in `mailroom status` and /metrics', async () => {
    const metric = async (name: string, labels = '') => {
      const text = await s.ctx.metrics.registry.getSingleMetricAsString(name);
      const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
      return line ? Number(line.split(' ')[1]) : 0;
    };
    await finishBulkRequests(s.ctx, s.clock.now());
    const before = await statusReport(s.ctx);
    const acceptedBefore = await metric('mailroom_bulk_requests_accepted_total');
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'x', TextBody: 'x', Messages: recipients(7, 'm') } });
    assert.equal(res.status, 200, res.text);
    const waiting = await statusReport(s.ctx);
    assert.equal(waiting.bulk.requests.Accepted, before.bulk.requests.Accepted + 1);
    assert.equal(waiting.bulk.entriesPending, before.bulk.entriesPending + 7);
    assert.match(formatStatus(waiting), new RegExp(`^Bulk requests: Accepted ${waiting.bulk.requests.Accepted}, Processing \\d+, Completed \\d+, Failed \\d+; ${waiting.bulk.entriesPending} entries waiting to be compiled$`, 'm'));
    assert.equal(await metric('mailroom_bulk_requests', '{status="Accepted"}'), waiting.bulk.requests.Accepted);
    assert.equal(await metric('mailroom_bulk_entries_pending'), waiting.bulk.entriesPending);
    assert.equal(await metric('mailroom_bulk_requests_accepted_total'), acceptedBefore + 1);
    const compiledBefore = await metric('mailroom_messages_accepted_total', '{stream="broadcast",source="bulk"}');
    await s.drain();
    // The periodic 'bulk-finish' task marks it Completed once its last message is handed off.
    await finishBulkRequests(s.ctx, s.clock.now());
    const done = await statusReport(s.ctx);
    assert.equal(done.bulk.requests.Completed, before.bulk.requests.Completed + 1);
    assert.equal(done.bulk.entriesPending, 0);
    assert.equal(await metric('mailroom_bulk_requests', '{status="Completed"}'), done.bulk.requests.Completed);
    assert.equal(await metric('mailroom_messages_accepted_total', '{stream="broadcast",source="bulk"}'), compiledBefore + 7);
  });

  it('takes a request of up to 50 MB and answers 413 one byte over', async () => {
    const MB = 1024 * 1024;
    const body = JSON.stringify({ From: 'news@example.com', Subject: 'x', TextBody: 'x', Messages: recipients(1, 'big') });
    const at = body + ' '.repeat(50 * MB - Buffer.byteLength(body));
    const ok = await s.request('POST', '/email/bulk', { raw: at });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    const over = await s.request('POST', '/email/bulk', { raw: `${at} ` });
    assert.equal(over.status, 413);
    assert.equal(over.body.ErrorCode, 300);
    await s.drain();
    assert.equal(delivered('big').length, 1);
  });
});
