// The planned text search (infra/db/text-index.ts: the rarest trigrams narrow, the rows are checked) returns
// exactly what a straightforward scan of the same rows returns: every message and recipient read back and
// matched in JavaScript with the database's semantics (a case-insensitive substring: Unicode case folding for
// terms the trigram index serves and on PostgreSQL, letter by letter there; ASCII folding for a shorter term
// on SQLite, as LIKE). Both
// plans are taken: terms with a rare trigram (narrowed from the index) and terms whose every trigram is in
// more rows than the index is asked for (a second server's filler makes them common), which read the rows;
// and, with the caps lowered to a few rows, terms whose trigrams are each common but rare together (the
// digits of a subject or an address among millions), which SQLite narrows by the AND of the sparsest.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { listMessages } from '../../../src/domain/mailpit/listing.js';
import { parseQuery, type Term } from '../../../src/domain/mailpit/query.js';
import type { MailpitServer } from '../../../src/domain/mailpit/filters.js';
import { fold } from '../../../src/infra/db/text-functions.js';
import { trigramCaps } from '../../../src/infra/db/text-index.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';
/** More rows than text-index.ts's larger cap: their trigrams ("Com", "omm", ...) are common. */
const FILLER = 16_500;

interface Row {
  id: string;
  texts: Record<string, string>;
  recipients: Array<{ kind: string; email: string; name: string }>;
}

/** The database's substring semantics (see the file's head). */
function substring(dialect: string, text: string, term: string): boolean {
  if (dialect === 'sqlite' && [...term].length < 3) {
    const ascii = (x: string) => x.replace(/[A-Z]/g, (c) => c.toLowerCase());
    return ascii(text).includes(ascii(term));
  }
  if (dialect === 'sqlite') return fold(text).includes(fold(term));
  // PostgreSQL's ILIKE lowercases letter by letter: a final sigma stays ς, and Σ becomes σ wherever it is.
  const lower = (x: string) => Array.from(x, (c) => c.toLowerCase()).join('');
  return lower(text).includes(lower(term));
}

/** The ids of the rows that match every term of `q`, read in JavaScript. */
function scanRows(rows: Row[], q: string, contains: (text: string, term: string) => boolean): string[] {
  const rcpt = (r: Row, kinds: string[], v: string) => r.recipients.some((x) => kinds.includes(x.kind) && (contains(x.email, v) || contains(x.name, v)));
  const scanOne = (r: Row, t: Term): boolean => {
    if (t.kind !== 'field') throw new Error('only text terms here');
    const v = t.value;
    const m = (c: string) => contains(r.texts[c] ?? '', v);
    switch (t.field) {
      case 'to':
        return rcpt(r, ['To'], v);
      case 'cc':
        return rcpt(r, ['Cc'], v);
      case 'bcc':
        return rcpt(r, ['Bcc'], v);
      case 'from':
        return m('from_raw');
      case 'subject':
        return m('subject');
      case 'addressed':
        return rcpt(r, ['To', 'Cc', 'Bcc'], v) || m('from_raw') || m('reply_to');
      case 'text':
        return ['subject', 'from_raw', 'text_body', 'html_body', 'tag', 'attachments'].some(m) || rcpt(r, ['To', 'Cc', 'Bcc'], v);
      default:
        throw new Error(`no scan for ${t.field}`);
    }
  };
  const terms = parseQuery(q);
  return rows.filter((r) => terms.every((t) => scanOne(r, t) !== t.exclude)).map((r) => r.id).sort();
}

/** Every message of a server and its recipients, read straightforwardly. */
async function readRows(s: TestService, serverId: number): Promise<Row[]> {
  const msgs = await s.ctx.db
    .selectFrom('messages')
    .select(['id', 'subject', 'from_raw', 'reply_to', 'text_body', 'html_body', 'tag', 'attachments'])
    .where('server_id', '=', serverId)
    .execute();
  const recips = await s.ctx.db.selectFrom('message_recipients').select(['message_id', 'kind', 'email', 'name']).where('server_id', '=', serverId).execute();
  return msgs.map((m) => ({
    id: m.id,
    texts: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v === null ? '' : String(v)])),
    recipients: recips.filter((x) => x.message_id === m.id),
  }));
}

describe('planned text search equals a scan of the rows', () => {
  let s: TestService;
  let token: string;
  let server: MailpitServer;
  let rows: Row[] = [];

  const send = async (body: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { token, body: { From: `Shop <${FROM}>`, To: 'someone@dest.example', ...body } });
    assert.equal(r.status, 200, r.text);
  };

  const contains = (text: string, term: string) => substring(s.ctx.database.dialect, text, term);
  const scan = (q: string) => scanRows(rows, q, contains);
  const search = async (q: string) => (await listMessages(s.ctx, server, { start: 0, limit: 1000 }, parseQuery(q))).messages.map((m) => m.ID).sort();

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    token = r.body.ApiTokens[0];
    server = { id: r.body.ID, accountId: s.accountId, sandbox: true };
    await send({ Subject: 'Bienvenue à l’ÉCOLE', TextBody: 'Votre inscription à l’école est confirmée', Tag: 'rentrée' });
    await send({ Subject: 'Привет', HtmlBody: '<p>ПРИВЕТСТВУЕМ вас, code Q7</p>', To: 'Иван Петров <ivan@dest.example>' });
    await send({ Subject: 'Say "NEAR(a b)" {x} * ^ 100% a_b', TextBody: 'plain', To: 'jane.doe@dest.example', Bcc: 'hidden@dest.example' });
    await send({ Subject: 'Receipt 2041', TextBody: "Thanks for your order, O'Brien", Cc: 'Boss <boss@dest.example>' });
    await send({ Subject: 'ΟΔΟΣ και οδός', TextBody: 'ΣΟΦΟΣ', ReplyTo: 'reply@else.example' });
    await send({ Subject: 'Common subject 1234', HtmlBody: '<b>common body</b>' });
    await send({ Subject: 'common SUBJECT 99', TextBody: 'x'.repeat(60) });
    await send({ Subject: 'ab', TextBody: 'AB ab Ab' });
    // A second server's filler, so that "common subject" has no rare trigram (a scan of the rows), as the
    // bench's million messages.
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Filler', DeliveryType: 'Sandbox' } });
    assert.equal(other.status, 200, other.text);
    await sql`insert into messages (id, server_id, stream_id, from_email, from_raw, subject, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at)
      select '00000000-0000-7000-8000-' || cast(100000000000 + i as text), ${other.body.ID}, 'outbound', 'a@b.example', 'a@b.example', 'Common subject body ' || cast(i * 7 as text), '[]', '{}', 0, 'None', '[]', 'Sent', 1, 1000 + i
      from (with recursive n(i) as (select 1 union all select i + 1 from n where i < ${FILLER}) select i from n) as seq`.execute(s.ctx.db);
    rows = await readRows(s, server.id);
    assert.equal(rows.length, 8);
  });
  after(() => s.close());

  const QUERIES = [
    'école', 'ÉCOLE', 'RENTRÉE', 'привет', 'ПРИВЕТ', 'иван', 'ab', 'AB', 'à', 'é', 'q7', '-q7', 'der', 'der 20', '"eipt 20"',
    'subject:NEAR(a', 'subject:*', 'subject:100%', 'subject:a_b', 'subject:%', 'subject:_', "o'brien", "O'BRIEN",
    'to:jane', 'to:JANE.DOE@DEST', '-to:jane', 'cc:boss', 'bcc:hidden', 'to:hidden', 'addressed:else.example', 'from:shop',
    'οδοσ', 'ΟΔΌΣ', 'σοφοσ', 'σοφος', '-école', 'dest.example', '@dest', 'common sub', 'COMMON SUBJECT 1234', '-common',
    'subject:"common subject 12"', 'common -1234', 'x'.repeat(40), `-${'x'.repeat(40)}`, `-${'q'.repeat(999)}`, 'subject:receipt to:boss',
  ];

  it('for each tricky term, on this database', async () => {
    for (const q of QUERIES) assert.deepEqual(await search(q), scan(q), q);
    assert.ok(scan('common sub').length === 2 && scan('école').length === 1, 'the fixture matches what it means to');
  });

  it("answers the API's subject filter as the scan of subjects", async () => {
    for (const subject of ['ÉCOLE', 'ab', 'Ab', 'common subject', 'SUBJECT 1234', '100%', 'a_b', 'οδοσ', 'zz']) {
      const r = await s.request('GET', `/messages/outbound?count=50&offset=0&subject=${encodeURIComponent(subject)}`, { token });
      assert.equal(r.status, 200, r.text);
      const got = r.body.Messages.map((m: { MessageID: string }) => m.MessageID).sort();
      assert.deepEqual(got, rows.filter((x) => contains(x.texts.subject!, subject)).map((x) => x.id).sort(), subject);
    }
  });
});

describe('a term whose trigrams are each common but rare together (caps lowered)', () => {
  let s: TestService;
  let token: string;
  let server: MailpitServer;
  let rows: Row[] = [];
  const saved = { ...trigramCaps };
  const contains = (text: string, term: string) => substring(s.ctx.database.dialect, text, term);
  const search = async (q: string) => (await listMessages(s.ctx, server, { start: 0, limit: 1000 }, parseQuery(q))).messages.map((m) => m.ID).sort();

  before(async () => {
    // "qwe" and "wer" are each in 6 subjects (4 or more: common), together in 3 (under 4: a narrowing);
    // so are "zxc" and "xcv" in the To addresses. "hello" is in every body: its AND is common too.
    Object.assign(trigramCaps, { small: 2, large: 4, combined: 4 });
    s = await startService();
    await addConfirmedSender(s, FROM);
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Combined', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    token = r.body.ApiTokens[0];
    server = { id: r.body.ID, accountId: s.accountId, sandbox: true };
    const mail: Array<[string, string]> = [
      ['qwe one', 'zxc1@a.example'], ['qwe two', 'zxc2@a.example'], ['qwe three', 'zxc3@a.example'],
      ['wer one', 'xcv1@a.example'], ['wer two', 'xcv2@a.example'], ['wer three', 'xcv3@a.example'],
      ['qwe and wer', 'zxc.xcv@a.example'], ['QWERTY', 'ZXCV@a.example'], ['a qwer b', 'Zxcv Name <n@a.example>'],
    ];
    for (const [Subject, To] of mail) {
      const sent = await s.request('POST', '/email', { token, body: { From: `Shop <${FROM}>`, To, Subject, TextBody: 'hello there' } });
      assert.equal(sent.status, 200, sent.text);
    }
    rows = await readRows(s, server.id);
    assert.equal(rows.length, mail.length);
  });
  after(() => {
    Object.assign(trigramCaps, saved);
    return s.close();
  });

  it('narrows by the AND of common trigrams on SQLite, reads the rows for a common AND', async (t) => {
    if (s.ctx.database.dialect !== 'sqlite') return t.skip('the AND of common trigrams is SQLite\'s plan');
    const plan = (target: Parameters<typeof s.ctx.database.sql.textPlan>[1], v: string) => s.ctx.database.sql.textPlan(s.ctx.db, target, v);
    const subject = { table: 'messages' as const, columns: ['subject' as const], indexed: true };
    const to = { table: 'recipients' as const, alias: 'r', columns: ['email' as const, 'name' as const] };
    assert.equal((await plan(subject, 'qwe')).narrowing, null, 'each trigram is common');
    assert.notEqual((await plan(subject, 'qwer')).narrowing, null, 'their AND is rare');
    assert.notEqual((await plan(to, 'zxcv')).narrowing, null, 'their AND is rare');
    assert.equal((await plan({ table: 'messages', columns: ['text_body'], indexed: true }, 'hello')).narrowing, null, 'a common AND reads the rows');
  });

  it('returns what the scan returns, on this database', async () => {
    for (const q of ['qwer', 'QWER', 'subject:qwer', 'qwerty', '-qwer', 'qwe', 'to:zxcv', 'to:ZXCV', '-to:zxcv', 'zxcv', 'qwer to:zxcv', 'hello', 'hello qwer', 'subject:"qwe and"']) {
      assert.deepEqual(await search(q), scanRows(rows, q, contains), q);
    }
    assert.equal(scanRows(rows, 'qwer', contains).length, 2, 'the fixture matches what it means to');
    for (const subject of ['qwer', 'QWER', 'hello', 'qwe']) {
      const r = await s.request('GET', `/messages/outbound?count=50&offset=0&subject=${encodeURIComponent(subject)}`, { token });
      assert.equal(r.status, 200, r.text);
      const got = r.body.Messages.map((m: { MessageID: string }) => m.MessageID).sort();
      assert.deepEqual(got, rows.filter((x) => contains(x.texts.subject!, subject)).map((x) => x.id).sort(), subject);
    }
  });
});
