// Substring search on the trigram indexes (migration 0034, infra/db/sql-dialect.ts): Mailpit's free text,
// to:, subject: and negations over a Sandbox inbox, and the API's subject filter, with the semantics of a
// case-insensitive substring (Unicode case folding on both databases); terms under 3 characters, which no
// trigram indexes, are read from the rows; counts stop at COUNT_WINDOW; a search past its time limit is
// answered 503 naming it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { COUNT_WINDOW, listMessages } from '../../../src/domain/mailpit/listing.js';
import { parseQuery } from '../../../src/domain/mailpit/query.js';
import type { MailpitServer } from '../../../src/domain/mailpit/filters.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';

describe('Mailpit search on the trigram indexes', () => {
  let s: TestService;
  let token: string;
  let server: MailpitServer;
  const ids: Record<string, string> = {};
  const send = async (key: string, body: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { token, body: { From: `Shop <${FROM}>`, To: 'someone@dest.example', ...body } });
    assert.equal(r.status, 200, r.text);
    ids[key] = r.body.MessageID;
  };
  const search = async (q: string) => (await listMessages(s.ctx, server, { start: 0, limit: 50 }, parseQuery(q))).messages.map((m) => m.ID).sort();
  const keys = (...k: string[]) => k.map((x) => ids[x]!).sort();

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    token = r.body.ApiTokens[0];
    server = { id: r.body.ID, accountId: s.accountId, sandbox: true };
    await send('french', { Subject: 'Bienvenue à l’ÉCOLE', TextBody: 'Votre inscription à l’école est confirmée', Tag: 'rentrée' });
    await send('russian', { Subject: 'Привет', HtmlBody: '<p>ПРИВЕТСТВУЕМ вас, code Q7</p>', To: 'Иван Петров <ivan@dest.example>' });
    await send('quotes', { Subject: 'Say "NEAR(a b)" {x} * ^', TextBody: 'plain', To: 'jane.doe@dest.example' });
    await send('plain', { Subject: 'Receipt 2041', TextBody: 'Thanks for your order', Cc: 'boss@dest.example' });
  });
  after(() => s.close());

  it('finds substrings case-insensitively, Unicode included, in every field free text reads', async () => {
    assert.deepEqual(await search('école'), keys('french'), 'an accented word in another case (subject ÉCOLE, body école)');
    assert.deepEqual(await search('привет'), keys('russian'), 'Cyrillic: subject Привет, body ПРИВЕТСТВУЕМ');
    assert.deepEqual(await search('RENTRÉE'), keys('french'), 'the tag');
    assert.deepEqual(await search('иван'), keys('russian'), 'a recipient name');
    assert.deepEqual(await search('der 20'), keys('plain'), 'two words: each in a field of its own');
    assert.deepEqual(await search('"der 20"'), [], 'quoted, one phrase: it is in no single field');
    assert.deepEqual(await search('"eipt 20"'), keys('plain'), 'a quoted phrase with a space inside one field');
    assert.deepEqual(await search('subject:receipt'), keys('plain'));
    assert.deepEqual(await search('to:jane.doe'), keys('quotes'));
    assert.deepEqual(await search('cc:BOSS@dest'), keys('plain'));
    assert.deepEqual(await search('to:boss'), [], 'a Cc recipient is not a To recipient');
  });

  it("reads a term's search syntax as text: quotes, NEAR, braces, stars", async () => {
    assert.deepEqual(await search('subject:NEAR(a'), keys('quotes'));
    assert.deepEqual(await search('subject:{x}'), keys('quotes'));
    assert.deepEqual(await search('subject:*'), keys('quotes'), 'one character: read from the rows');
    assert.deepEqual(await search('subject:"say \\"near"'), [], 'not Mailpit syntax for an inner quote: no match, no error');
  });

  it('negates: every message without the substring, a message with an empty field included', async () => {
    assert.deepEqual(await search('-école'), keys('russian', 'quotes', 'plain'));
    assert.deepEqual(await search('-to:jane'), keys('french', 'russian', 'plain'));
    const long = 'x'.repeat(999);
    assert.deepEqual(await search(`-${long}`), keys('french', 'russian', 'quotes', 'plain'), 'a negated 999-character word');
    assert.deepEqual(await search(long), []);
  });

  it('matches terms under 3 characters, which no trigram holds, by reading the rows (ASCII case-insensitive)', async () => {
    assert.deepEqual(await search('q7'), keys('russian'));
    assert.deepEqual(await search('Q7'), keys('russian'));
    assert.deepEqual(await search('-q7'), keys('french', 'quotes', 'plain'));
    assert.deepEqual(await search('subject:20'), keys('plain'));
  });

  it("answers the API's subject filter from the index, as a case-insensitive substring", async () => {
    const r = await s.request('GET', '/messages/outbound?count=50&offset=0&subject=ECEIPT%202', { token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.Messages.map((m: { MessageID: string }) => m.MessageID),
      [ids.plain],
    );
    assert.equal(r.body.TotalCount, 1);
    const short = await s.request('GET', '/messages/outbound?count=50&offset=0&subject=%C3%A0', { token });
    assert.equal(short.body.TotalCount, 1, 'one character (à): read from the rows');
  });
});

/** COUNT_WINDOW + 5 messages of a Sandbox server written in one statement (the columns a listing reads). */
async function fillInbox(s: TestService, name: string): Promise<MailpitServer & { token: string }> {
  const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: name, DeliveryType: 'Sandbox' } });
  assert.equal(r.status, 200, r.text);
  const server = { id: r.body.ID as number, accountId: s.accountId, sandbox: true, token: r.body.ApiTokens[0] as string };
  await sql`insert into messages (id, server_id, stream_id, from_email, from_raw, subject, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at)
    select '00000000-0000-7000-8000-' || cast(100000000000 + i as text), ${server.id}, 'outbound', 'a@b.example', 'a@b.example', 'Hello ' || cast(i as text), '[]', '{}', 0, 'None', '[]', 'Sent', 1, 1000 + i
    from (with recursive n(i) as (select 1 union all select i + 1 from n where i < ${COUNT_WINDOW + 5}) select i from n) as seq`.execute(s.ctx.db);
  return server;
}

describe('Mailpit counts: the inbox exact, a search bounded', () => {
  let s: TestService;
  let server: MailpitServer;

  before(async () => {
    s = await startService();
    server = await fillInbox(s, 'Big inbox');
  });
  after(() => s.close());

  it('gives the inbox its kept figures, counts the newest COUNT_WINDOW matches of a search, and still pages past them', async () => {
    const list = await listMessages(s.ctx, server, { start: 0, limit: 3 });
    assert.equal(list.total, COUNT_WINDOW + 5);
    assert.equal(list.unread, COUNT_WINDOW + 5);
    assert.equal(list.messages_count, COUNT_WINDOW + 5);
    const all = await listMessages(s.ctx, server, { start: 0, limit: 1 }, parseQuery('subject:hello'));
    assert.deepEqual([all.total, all.messages_count, all.messages_unread], [COUNT_WINDOW + 5, COUNT_WINDOW, COUNT_WINDOW]);
    assert.deepEqual(
      list.messages.map((m) => m.Subject),
      [`Hello ${COUNT_WINDOW + 5}`, `Hello ${COUNT_WINDOW + 4}`, `Hello ${COUNT_WINDOW + 3}`],
    );
    const last = await listMessages(s.ctx, server, { start: COUNT_WINDOW + 3, limit: 5 });
    assert.deepEqual(
      last.messages.map((m) => m.Subject),
      ['Hello 2', 'Hello 1'],
      'the oldest page is cut in the database',
    );
    const found = await listMessages(s.ctx, server, { start: 0, limit: 1 }, parseQuery('subject:"hello 1000"'));
    assert.equal(found.messages_count, 7, 'Hello 1000 and Hello 10000-10005');
  });
});

describe('a search past its time limit', () => {
  let s: TestService;
  let token: string;

  before(async () => {
    // A limit of 0 (PostgreSQL: 1 ms, its smallest): a search reading 10,005 rows is past it.
    s = await startService({ dbOptions: { readLimitMs: 0 } });
    token = (await fillInbox(s, 'Limited inbox')).token;
  });
  after(() => s.close());

  it('is answered 503 naming the limit, on the API and on the Mailpit API, and the service goes on', async () => {
    const api = await s.request('GET', '/messages/outbound?count=50&offset=0&subject=zz', { token });
    assert.equal(api.status, 503, api.text);
    assert.equal(api.body.ErrorCode, 702);
    assert.match(api.body.Message, /time limit of \d+ ms/);
    const basic = `Basic ${Buffer.from(`ci:${token}`).toString('base64')}`;
    const mp = await s.request('GET', '/mailpit/api/v1/search?query=-zz', { token: null, headers: { authorization: basic } });
    assert.equal(mp.status, 503, mp.text);
    assert.match(mp.text, /time limit of \d+ ms/);
    const health = await s.request('GET', '/healthz', { token: null });
    assert.equal(health.status, 200);
  });
});
