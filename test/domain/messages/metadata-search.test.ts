// GET /messages/outbound?metadata_<key>=<value> is answered from message_metadata (migration 0039): it must
// return exactly what a plain scan of the messages' Metadata JSON returns (every message of the server read
// back and matched in JavaScript, and the JSON condition the search used before), for keys with odd
// characters, Unicode and case, beside other filters, paged, and after retention deleted messages; and the
// statement must read the table's index, not the messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { metadataHits } from '../../../src/domain/messages/search-metadata.js';
import { deleteMessagesBefore } from '../../../src/domain/retention/purge.js';
import { explain } from '../../helpers/explain.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';
const DAY = 86_400_000;

/** Keys and values a stranger may send: URL and SQL syntax, JSON escapes, case, spaces, Unicode. */
const KEYS = ['customer', 'Customer', 'a.b', 'a&b=c', 'x y', '100%', 'a_b', "it's", 'q"uote', 'back\\slash', 'ключ', '🔑', ' lead'];
const VALUES = ['c-1', 'C-1', '', 'ünïcödé', '😀 and more', '%', '_', "o'brien", '"', '\\', 'a+b', 'c-2'];

describe('metadata search equals a scan of the Metadata', () => {
  let s: TestService;
  let stored: Array<{ id: string; metadata: Record<string, string> }> = [];

  const send = async (n: number, offset: number) => {
    const body = Array.from({ length: n }, (_, j) => {
      const i = offset + j;
      const Metadata: Record<string, string> = {};
      // Each message a few fields, spread so that every value of a key is on several messages but not all.
      for (let k = 0; k < 3; k++) Metadata[KEYS[(i + k * 5) % KEYS.length]!] = VALUES[((i % 4) * 3 + k) % VALUES.length]!;
      // And one common field: a third of the messages each.
      Metadata.plan = ['basic', 'Basic', 'pro'][i % 3]!;
      return { From: FROM, To: `r${i % 4}@dest.example`, Subject: `s${i}`, TextBody: 'x', Tag: i % 3 === 0 ? 'three' : undefined, Metadata };
    });
    const r = await s.request('POST', '/email/batch', { body });
    assert.equal(r.status, 200, r.text);
    for (const x of r.body) assert.equal(x.ErrorCode, 0, JSON.stringify(x));
  };

  const readBack = async () => {
    const rows = await s.ctx.db.selectFrom('messages').select(['id', 'metadata']).where('server_id', '=', s.serverId).execute();
    stored = rows.map((r) => ({ id: r.id, metadata: JSON.parse(r.metadata) as Record<string, string> }));
  };

  /** The plain scan: the Metadata JSON of every message of the server, matched in JavaScript. */
  const scan = (fields: Record<string, string>, keep: (id: string) => boolean = () => true) =>
    stored.filter((m) => keep(m.id) && Object.entries(fields).every(([k, v]) => Object.hasOwn(m.metadata, k) && m.metadata[k] === v)).map((m) => m.id).sort();

  /** The same scan in SQL, as the search was written before the index (the JSON text read per message). */
  const sqlScan = async (key: string, value: string) =>
    (await s.ctx.db.selectFrom('messages').select('id').where('server_id', '=', s.serverId).where(s.ctx.database.sql.jsonFieldEquals(sql.ref('metadata'), key, value)).execute()).map((r) => r.id).sort();

  const search = async (fields: Record<string, string>, extra = '', count = 500, offset = 0) => {
    const q = Object.entries(fields).map(([k, v]) => `metadata_${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const r = await s.request('GET', `/messages/outbound?count=${count}&offset=${offset}&${q}${extra}`);
    assert.equal(r.status, 200, r.text);
    return { ids: (r.body.Messages as Array<{ MessageID: string }>).map((m) => m.MessageID), total: r.body.TotalCount as number };
  };

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await send(60, 0);
    s.clock.advance(10 * DAY);
    await send(60, 60);
    // Another server's messages with the same fields are never found.
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Other' } });
    assert.equal(other.status, 200, other.text);
    const r = await s.request('POST', '/email', { token: other.body.ApiTokens[0], body: { From: FROM, To: 'r0@dest.example', Subject: 'o', TextBody: 'x', Metadata: { customer: 'c-1', ключ: 'c-1' } } });
    assert.equal(r.status, 200, r.text);
    await readBack();
    assert.equal(stored.length, 120);
  });
  after(() => s.close());

  const pairs = () => [...KEYS, 'plan'].flatMap((k) => [...VALUES, 'basic', 'BASIC'].map((v) => [k, v] as const));

  it('for every key and value, as the scan', async () => {
    let found = 0;
    for (const [k, v] of pairs()) {
      const want = scan({ [k]: v });
      const got = await search({ [k]: v });
      assert.deepEqual([...got.ids].sort(), want, `${k}=${v}`);
      assert.equal(got.total, want.length, `${k}=${v} TotalCount`);
      assert.deepEqual(await sqlScan(k, v), want, `${k}=${v}: the JSON scan agrees`);
      found += want.length;
    }
    assert.ok(found > 300, 'the fixture matches what it means to');
    assert.deepEqual((await search({ customer: 'c-1' })).ids.length > 0, true);
    assert.deepEqual((await search({ nokey: 'c-1' })).ids, []);
    assert.deepEqual((await search({ customer: 'no such value' })).ids, []);
  });

  it('newest first, paged, beside other filters and a second key', async () => {
    const order = new Map((await s.ctx.db.selectFrom('messages').select(['id', 'received_at']).where('server_id', '=', s.serverId).execute()).map((r) => [r.id, Number(r.received_at)]));
    const newestFirst = (ids: string[]) => [...ids].sort((a, b) => order.get(b)! - order.get(a)! || (a < b ? 1 : a > b ? -1 : 0));
    const [k, v] = ['plan', 'Basic'];
    const all = newestFirst(scan({ [k]: v }));
    assert.ok(all.length >= 4);
    assert.deepEqual((await search({ [k]: v })).ids, all, 'newest first');
    assert.deepEqual((await search({ [k]: v }, '', 2, 1)).ids, all.slice(1, 3), 'a page');
    const tagged = new Set((await s.ctx.db.selectFrom('messages').select('id').where('tag', '=', 'three').execute()).map((r) => r.id));
    for (const [key, value] of pairs().slice(0, 40)) {
      assert.deepEqual([...(await search({ [key]: value }, '&tag=three')).ids].sort(), scan({ [key]: value }, (id) => tagged.has(id)), `${key}=${value} and tag`);
    }
    const toR1 = new Set((await s.ctx.db.selectFrom('message_recipients').select('message_id').where('email', '=', 'r1@dest.example').execute()).map((r) => r.message_id));
    for (const [key, value] of pairs().slice(40, 80)) {
      assert.deepEqual([...(await search({ [key]: value }, '&recipient=r1@dest.example')).ids].sort(), scan({ [key]: value }, (id) => toR1.has(id)), `${key}=${value} and recipient`);
    }
    let both = 0;
    for (const m of stored.slice(0, 30)) {
      const [a, , , b] = Object.entries(m.metadata);
      const fields = { [a![0]]: a![1], [b![0]]: b![1] };
      const want = scan(fields);
      both += want.length;
      assert.deepEqual([...(await search(fields)).ids].sort(), want, JSON.stringify(fields));
    }
    assert.ok(both >= 30);
  });

  it('after retention deleted the older messages, with their metadata rows', async () => {
    const before = await s.ctx.db.selectFrom('message_metadata').select(sql<number>`count(*)`.as('n')).where('server_id', '=', s.serverId).executeTakeFirstOrThrow();
    assert.equal(Number(before.n), 480, 'four fields a message');
    const deleted = await deleteMessagesBefore(s.ctx as never, s.serverId, s.clock.now() - DAY);
    assert.equal(deleted, 60);
    await readBack();
    assert.equal(stored.length, 60);
    const left = await s.ctx.db.selectFrom('message_metadata').select(sql<number>`count(*)`.as('n')).where('server_id', '=', s.serverId).executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 240, 'the deleted messages took their rows along');
    for (const [k, v] of pairs()) assert.deepEqual([...(await search({ [k]: v })).ids].sort(), scan({ [k]: v }), `${k}=${v}`);
  });

  it('reads the index of message_metadata, newest first without a sort', async () => {
    // Another key on many more messages of the server, as the index is built for.
    await sql`insert into messages (id, server_id, stream_id, from_email, from_raw, subject, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at)
      select '00000000-0000-7000-8000-' || cast(100000000000 + i as text), ${s.serverId}, 'outbound', 'a@b.example', 'a@b.example', 's', '[]', '{}', 0, 'None', '[]', 'Sent', 0, 1000 + i
      from (with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000) select i from n) as seq`.execute(s.ctx.db);
    await sql`insert into message_metadata (message_id, key, server_id, stream_id, value, received_at)
      select id, 'filler', server_id, stream_id, 'v' || cast(received_at % 50 as text), received_at from messages where id like '00000000-%'`.execute(s.ctx.db);
    if (s.ctx.database.dialect === 'postgres') await sql`analyze message_metadata`.execute(s.ctx.db);
    const q = metadataHits(s.ctx, s.serverId, 'outbound', [['filler', 'v7']], []).orderBy('received_at', 'desc').orderBy('message_id', 'desc').limit(50).compile();
    const plan = await explain(s, q);
    assert.match(plan, /message_metadata_search/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE|"Sort"|\bSCAN messages\b|"Seq Scan","messages/i, plan);
  });
});
