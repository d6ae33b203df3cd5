// A search's count window taken from the kept figures (counts.ts keptSearchCount: `is:unread`, `is:read`,
// `tag:x` with either or alone) equals the window counted from the rows (the newest `window` matches and
// their unread ones), for windows below, at and above the number of matches, tags in any case, set through
// the API (replacing the Tag) or not, read and unread; and any other shape is left to the window (null).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { keptSearchCount } from '../../../src/domain/mailpit/counts.js';
import { scope, type MailpitServer } from '../../../src/domain/mailpit/filters.js';
import { parseQuery } from '../../../src/domain/mailpit/query.js';
import { setRead } from '../../../src/domain/mailpit/read-state.js';
import { setTags } from '../../../src/domain/mailpit/tags.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';
const TAGS = ['welcome', 'Welcome', undefined, 'news', 'WELCOME', 'ünïcode', 'news', undefined, 'Other', 'welcome'];

describe('a search counted from the kept figures equals its counted window', () => {
  let s: TestService;
  let server: MailpitServer;

  /** The newest `window` matches of the plain query, and their unread ones. */
  const reference = async (q: string, window: number) => {
    const rows = (await scope(s.ctx, server, parseQuery(q))
      .leftJoin('mailpit_state as st', 'st.message_id', 'messages.id')
      .select(['messages.id', sql<number>`coalesce(st.read, 0)`.as('r')])
      .orderBy('messages.received_at', 'desc')
      .orderBy('messages.id', 'desc')
      .limit(window)
      .execute()) as Array<{ r: number }>;
    return { n: rows.length, unread: rows.filter((r) => Number(r.r) === 0).length };
  };

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    server = { id: r.body.ID, accountId: s.accountId, sandbox: true };
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      s.clock.advance(1000);
      const m = await s.request('POST', '/email', { token: r.body.ApiTokens[0], body: { From: FROM, To: 'r@dest.example', Subject: `m${i}`, TextBody: 'x', ...(TAGS[i % TAGS.length] ? { Tag: TAGS[i % TAGS.length] } : {}) } });
      assert.equal(m.status, 200, m.text);
      ids.push(m.body.MessageID);
    }
    await setRead(s.ctx, server, ids.filter((_, i) => i % 3 === 0 || i % 7 === 0), true);
    // Tags through the API replace the Tag: some keep a case variant of it, some drop it, one is read.
    await setTags(s.ctx, server, [ids[0]!, ids[3]!, ids[8]!, ids[21]!], ['NEWS', 'extra']);
    await setTags(s.ctx, server, [ids[1]!], []);
  });
  after(() => s.close());

  it('counts as the window does, below, at and past the number of matches', async () => {
    const queries = ['is:unread', 'is:read', 'tag:welcome', 'tag:WELCOME is:unread', 'is:read tag:news', 'tag:news', 'tag:extra is:unread', 'tag:other is:read', 'tag:nothing is:unread', 'tag:nothing'];
    for (const q of queries) {
      for (const window of [1, 3, 7, 12, 30, 1000]) {
        const want = await reference(q, window);
        const got = await keptSearchCount(s.ctx, server, parseQuery(q), window);
        const all = await reference(q, 1_000_000);
        // A tag: alone is kept only when all of its matches fit in the window (which are unread depends on the order otherwise).
        if (q.startsWith('tag:') && !q.includes(' ') && all.n > window) assert.equal(got, null, `${q} in ${window}`);
        else assert.deepEqual(got, want, `${q} in ${window}`);
      }
    }
  });

  it('leaves every other search to its window', async () => {
    for (const q of ['', 'subject:m1', 'tag:welcome subject:m1', '-tag:welcome', '-is:unread', 'tag:welcome tag:news', 'is:read is:unread', 'is:tagged', 'tag:ünïcode is:unread', 'tag:"a\\b"']) {
      assert.equal(await keptSearchCount(s.ctx, server, parseQuery(q), 1000), null, q);
    }
    assert.equal(await keptSearchCount(s.ctx, { ...server, sandbox: false }, parseQuery('is:unread'), 1000), null, 'a Live server has no kept figures');
  });
});
