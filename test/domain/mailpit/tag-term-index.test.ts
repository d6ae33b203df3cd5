// Mailpit's tag: term planned on the folded tag index of migration 0039 (tag-term.ts) returns exactly what
// the per-message check returns (scope without planned terms: the Tag, or the tags set through the API which
// replace it), with is:read / is:unread, negated, in any case, for long and odd tags, with tags set, replaced
// and removed through the API; and `tag:x is:unread` reads messages_sandbox_tag in time order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { planTerms, scope, type MailpitServer } from '../../../src/domain/mailpit/filters.js';
import { listMessages } from '../../../src/domain/mailpit/listing.js';
import { parseQuery } from '../../../src/domain/mailpit/query.js';
import { setRead } from '../../../src/domain/mailpit/read-state.js';
import { setTags } from '../../../src/domain/mailpit/tags.js';
import { explain } from '../../helpers/explain.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';
/** Past a b-tree entry of PostgreSQL (2,850 bytes of UTF-8): the index holds its digest. */
const LONG = `L${'€'.repeat(949)}`;
const TAGS = ['welcome', 'Welcome', 'WELCOME', 'news', undefined, 'a_b%', 'ünïcode', LONG, 'news', 'welcome', undefined, 'Other'];

describe('tag: on the folded tag index equals the per-message check', () => {
  let s: TestService;
  let server: MailpitServer;
  const ids: string[] = [];

  /** The plain check: every term written before any look at an index (scope without planned terms). */
  const scan = async (q: string) => {
    const rows = (await scope(s.ctx, server, parseQuery(q)).select(['messages.id', sql<number>`coalesce(s.read, 0)`.as('r')]).execute()) as Array<{ id: string; r: number }>;
    return { ids: rows.map((r) => r.id).sort(), unread: rows.filter((r) => Number(r.r) === 0).length };
  };
  const search = async (q: string) => {
    const r = await listMessages(s.ctx, server, { start: 0, limit: 1000 }, parseQuery(q));
    return { ids: r.messages.map((m) => m.ID).sort(), count: r.messages_count, unread: r.messages_unread };
  };

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    server = { id: r.body.ID, accountId: s.accountId, sandbox: true };
    const token = r.body.ApiTokens[0];
    for (let i = 0; i < 36; i++) {
      const sent = await s.request('POST', '/email', { token, body: { From: FROM, To: 'a@dest.example', Subject: `m${i}`, TextBody: 'x', Tag: TAGS[i % TAGS.length] } });
      assert.equal(sent.status, 200, sent.text);
      ids.push(sent.body.MessageID);
      s.clock.advance(1000);
    }
    await setRead(s.ctx, server, ids.filter((_, i) => i % 3 === 0), true);
  });
  after(() => s.close());

  const QUERIES = [
    'tag:welcome', 'tag:WELCOME', 'tag:welcome is:unread', 'tag:Welcome is:read', 'tag:news is:unread', '-tag:welcome', '-tag:welcome is:unread',
    'tag:a_b%', 'tag:a_b', 'tag:%', 'tag:ünïcode', `tag:${LONG}`, `tag:${LONG.toLowerCase()}`, 'tag:other', 'tag:nothing', 'tag:welcome tag:news',
    'tag:checked', 'tag:checked is:unread', 'tag:welcome subject:m1', 'is:unread', 'tag:"welcome"',
  ];

  const compare = async (label: string, queries = QUERIES) => {
    for (const q of queries) {
      const want = await scan(q);
      const got = await search(q);
      assert.deepEqual(got.ids, want.ids, `${label}: ${q}`);
      assert.equal(got.count, want.ids.length, `${label}: ${q} (count)`);
      assert.equal(got.unread, want.unread, `${label}: ${q} (unread)`);
    }
  };

  it('with the Tag alone', async () => {
    await compare('Tag only');
    assert.equal((await scan('tag:welcome')).ids.length, 12, 'welcome in any case');
    assert.equal((await scan('tag:welcome is:unread')).ids.length, 6);
  });

  it('with tags set through the API: added, replacing the Tag, removed', async () => {
    // news gains "checked" (a tag no Tag has: its messages are read first as ids); a welcome loses its Tag
    // for "other"; one is left with none; a Tag's own name set again, in another case.
    await setTags(s.ctx, server, [ids[3]!, ids[8]!], ['news', 'checked']);
    await setTags(s.ctx, server, [ids[0]!], ['other']);
    await setTags(s.ctx, server, [ids[1]!], []);
    await setTags(s.ctx, server, [ids[2]!], ['WELCOME']);
    const planned = await planTerms(s.ctx, server, parseQuery('tag:checked tag:welcome'));
    assert.equal(planned.tagIndexed.size, 1, 'welcome on the index');
    assert.equal([...planned.ids.values()][0]?.length, 2, 'checked as ids');
    await compare('API tags');
    assert.equal((await scan('tag:welcome')).ids.length, 10);
    assert.equal((await scan('tag:checked')).ids.length, 2);
  });

  it('reads messages_sandbox_tag in time order for tag:x is:unread', async () => {
    // The server's inbox made larger than the test's, as the index is built for.
    await sql`insert into messages (id, server_id, stream_id, from_email, from_raw, subject, tag, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at)
      select '00000000-0000-7000-8000-' || cast(100000000000 + i as text), ${server.id}, 'outbound', 'a@b.example', 'a@b.example', 's', 'tag' || cast(i % 50 as text), '[]', '{}', 0, 'None', '[]', 'Sent', 1, 1000 + i
      from (with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000) select i from n) as seq`.execute(s.ctx.db);
    if (s.ctx.database.dialect === 'postgres') await sql`analyze messages`.execute(s.ctx.db);
    const terms = parseQuery('tag:tag7 is:unread');
    const q = scope(s.ctx, server, terms, undefined, await planTerms(s.ctx, server, terms))
      .select('messages.id')
      .orderBy('messages.received_at', 'desc')
      .orderBy('messages.id', 'desc')
      .limit(50)
      .compile();
    const plan = await explain(s, q);
    assert.match(plan, /messages_sandbox_tag/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE|"Sort"|messages_sandbox_time/i, plan);
    await compare('with the filler', ['tag:tag7', 'tag:tag7 is:unread', 'tag:TAG7 is:read', 'tag:welcome is:unread', 'tag:checked', 'tag:tag7 tag:welcome']);
    assert.equal((await search('tag:tag7 is:unread')).count, 100);
  });
});
