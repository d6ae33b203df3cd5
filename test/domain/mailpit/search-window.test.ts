// A Mailpit search's count window and page (listing.ts: one statement when the page lies within the window,
// else the count and the page apart; PostgreSQL: the state joined partition by partition, state-join.ts)
// return what the plain query returns: every match in order (received_at, then id, newest first), the
// newest COUNT_WINDOW of them counted with their unread ones, the page sliced from them. Pages inside,
// across and past the window, with and without state terms; the console's list and neighbours and latest too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { needsState, scope, type MailpitServer } from '../../../src/domain/mailpit/filters.js';
import { inboxPage, neighbours } from '../../../src/domain/mailpit/inbox-list.js';
import { COUNT_WINDOW, latestId, listMessages } from '../../../src/domain/mailpit/listing.js';
import { parseQuery } from '../../../src/domain/mailpit/query.js';
import { setTags } from '../../../src/domain/mailpit/tags.js';
import { createPartitionsBetween } from '../../../src/infra/db/partitions.js';
import { startService, type TestService } from '../../helpers/service.js';

/** Past the window, so that the last pages are cut apart from the count. */
const FILLER = COUNT_WINDOW + 150;
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

describe('Mailpit search: the count window and the page equal the plain query', () => {
  let s: TestService;
  let server: MailpitServer;

  /** The plain way: every match in order with its read flag, sliced and counted here. */
  const reference = async (q: string) => {
    const terms = parseQuery(q);
    const base = scope(s.ctx, server, terms);
    const rows = (await (needsState(terms) ? base.select(['messages.id', sql<number>`coalesce(s.read, 0)`.as('r')]) : base.select('messages.id'))
      .orderBy('messages.received_at', 'desc')
      .orderBy('messages.id', 'desc')
      .execute()) as Array<{ id: string; r?: number }>;
    const read = new Set((await s.ctx.db.selectFrom('mailpit_state').select('message_id').where('server_id', '=', server.id).where('read', '=', 1).execute()).map((r) => r.message_id));
    const window = rows.slice(0, COUNT_WINDOW);
    return { ids: rows.map((r) => r.id), count: window.length, unread: window.filter((r) => !read.has(r.id)).length };
  };

  before(async () => {
    s = await startService();
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    server = { id: r.body.ID, accountId: s.accountId, sandbox: true };
    // Over the last hours, so that the rows lie in the day partitions the service made (PostgreSQL); some
    // share a received_at, so that the id decides their order. Ids are UUIDv7 of their time.
    const now = s.clock.now();
    await createPartitionsBetween(s.ctx.db, now - 86_400_000, now);
    const rows = Array.from({ length: FILLER }, (_, i) => {
      const at = now - Math.floor(i / 3) * 1000;
      const t = hex(at, 12);
      return {
        id: `${t.slice(0, 8)}-${t.slice(8)}-7000-8000-${hex(i, 12)}`,
        server_id: server.id,
        stream_id: 'outbound',
        from_email: 'a@b.example',
        from_raw: 'a@b.example',
        subject: `filler ${i % 7}`,
        tag: i % 11 === 0 ? null : `Tag${i % 5}`,
        headers: '[]',
        metadata: '{}',
        track_opens: 0,
        track_links: 'None',
        attachments: '[]',
        status: 'Sent',
        sandbox: 1,
        received_at: at,
      };
    });
    for (let i = 0; i < rows.length; i += 500) await s.ctx.db.insertInto('messages').values(rows.slice(i, i + 500) as any).execute();
    await sql`insert into mailpit_state (message_id, server_id, read) select id, server_id, 1 from messages where server_id = ${server.id} and subject in ('filler 1', 'filler 4')`.execute(s.ctx.db);
    // A few tags set through the API: tag: then also reads their state's tags.
    await setTags(s.ctx, server, [rows[2]!.id, rows[40]!.id, rows[9000]!.id], ['tag1', 'extra']);
    if (s.ctx.database.dialect === 'postgres') await sql`analyze messages, mailpit_state`.execute(s.ctx.db);
  });
  after(() => s.close());

  const QUERIES = ['is:unread', 'tag:tag1 is:unread', 'tag:TAG2', 'is:read', 'is:tagged', '-tag:tag3 is:unread', 'subject:"filler 2"', 'tag:extra', 'tag:nothing is:unread', '-tag:nothing', 'subject:filler'];
  const PAGES: Array<[number, number]> = [
    [0, 50],
    [123, 7],
    [COUNT_WINDOW - 20, 50],
    [COUNT_WINDOW + 10, 30],
    [0, 0],
  ];

  it('counts and pages as the plain query does, inside, across and past the window', async () => {
    for (const q of QUERIES) {
      const want = await reference(q);
      for (const [start, limit] of PAGES) {
        const got = await listMessages(s.ctx, server, { start, limit }, parseQuery(q));
        const label = `${q} at ${start}+${limit}`;
        assert.deepEqual(
          got.messages.map((m) => m.ID),
          want.ids.slice(start, start + limit),
          label,
        );
        assert.equal(got.messages_count, want.count, `${label} (count)`);
        assert.equal(got.messages_unread, want.unread, `${label} (unread)`);
      }
      assert.equal(await latestId(s.ctx, server, parseQuery(q)), want.ids[0] ?? null, `${q} (latest)`);
    }
    assert.ok((await reference('-tag:nothing')).ids.length > COUNT_WINDOW, 'the window is passed (state joined)');
    assert.ok((await reference('subject:filler')).ids.length > COUNT_WINDOW, 'the window is passed (state looked up after)');
  });

  it("pages the console's list and finds a message's neighbours as the plain query", async () => {
    const box = { id: server.id, delivery_type: 'Sandbox' };
    for (const q of ['is:unread', 'tag:tag1 is:read']) {
      const want = (await reference(q)).ids;
      const first = await inboxPage(s.ctx, box, parseQuery(q), undefined, 25);
      assert.deepEqual(first.map((m) => m.MessageID), want.slice(0, 25), q);
      const mid = want[100]!;
      assert.deepEqual(await neighbours(s.ctx, box, mid, parseQuery(q)), { newer: want[99]!, older: want[101]! }, `${q} (neighbours)`);
    }
  });
});
