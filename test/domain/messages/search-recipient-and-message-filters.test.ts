// GET /messages with a recipient filter and a message filter together (recipient + tag, bounced + tag). On
// PostgreSQL the recipient's message ids are read first in batches and the message filters applied to them
// (messages/search.ts); on SQLite the two are joined. Either way the pages and the capped TotalCount must be
// those of the filters: here over a recipient with 12,500 messages, so that the walk spans many batches,
// passes the 10,000 cap and meets ties on received_at, duplicate recipient rows and another server's mail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { startService, type TestService } from '../../helpers/service.js';

const N = 12_500;
const id = (i: number) => `00000000-0000-7000-8000-${100_000_000_000 + i}`;

describe('message search by recipient and message filters together', () => {
  let s: TestService;
  let t0: number;

  /** What the filters must find, newest first: received_at = t0 + floor(i / 2) (ties in pairs, broken by id). */
  const expected = (keep: (i: number) => boolean) =>
    Array.from({ length: N }, (_, k) => N - k)
      .filter(keep)
      .map(id);
  const search = async (query: string) => {
    const r = await s.request('GET', `/messages?${query}`);
    assert.equal(r.status, 200, r.text);
    return { total: r.body.TotalCount as number, ids: (r.body.Messages as Array<{ MessageID: string }>).map((m) => m.MessageID) };
  };

  before(async () => {
    s = await startService();
    const other = await createServer(s.ctx.db, { accountId: s.accountId, name: 'Other' }, s.clock.now());
    t0 = s.clock.now() - 86_400_000;
    const db = s.ctx.db;
    const seq = (from: number, to: number) => sql`with recursive n(i) as (select ${sql.lit(from)} union all select i + 1 from n where i < ${sql.lit(to)})`;
    const fill = async (serverId: number, from: number, to: number) => {
      const mid = sql`'00000000-0000-7000-8000-' || (100000000000 + i)`;
      const at = sql`${sql.lit(t0)} + i / 2`;
      await sql`${seq(from, to)} insert into messages (id, server_id, stream_id, from_email, from_raw, subject, tag, html_body, text_body, reply_to, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at, mime)
        select ${mid}, ${sql.lit(serverId)}, 'outbound', 'sender@example.com', 'sender@example.com', 'Subject ' || i, case when i % 7 = 0 then 'rare' else 'common' end,
          null, 'Body', null, '[]', '{}', 0, 'None', '[]', 'Sent', 0, ${at}, null from n`.execute(db);
      // Every message to busy@ (bounced for one in eleven), and one in five to it in Cc as well: found once.
      await sql`${seq(from, to)} insert into message_recipients (message_id, server_id, stream_id, kind, email, name, status, received_at, settled_at)
        select ${mid}, ${sql.lit(serverId)}, 'outbound', 'To', 'busy@example.net', '', case when i % 11 = 0 then 'Bounced' else 'Sent' end, ${at}, ${at} + 1000 from n`.execute(db);
      await sql`${seq(from, to)} insert into message_recipients (message_id, server_id, stream_id, kind, email, name, status, received_at, settled_at)
        select ${mid}, ${sql.lit(serverId)}, 'outbound', 'Cc', 'Busy@Example.net', '', 'Sent', ${at}, ${at} + 1000 from n where i % 5 = 0`.execute(db);
    };
    await fill(s.serverId, 1, N);
    await fill(other.serverId, N + 1, N + 200); // another server's mail to the same address, tagged alike
  });
  after(async () => {
    await s?.close();
  });

  it('pages a busy recipient by a rare tag across batches, exactly', async () => {
    const rare = expected((i) => i % 7 === 0);
    const first = await search('count=50&offset=0&recipient=busy@example.net&tag=rare');
    assert.equal(first.total, rare.length);
    assert.deepEqual(first.ids, rare.slice(0, 50));
    for (const offset of [60, 450, 1700]) {
      const page = await search(`count=100&offset=${offset}&recipient=BUSY@example.net&tag=rare`);
      assert.deepEqual(page.ids, rare.slice(offset, offset + 100), `offset ${offset}`);
    }
  });

  it('caps TotalCount at 10,000 and still reaches the last page of the window', async () => {
    const common = expected((i) => i % 7 !== 0);
    assert.ok(common.length > 10_000);
    const last = await search('count=100&offset=9900&recipient=busy@example.net&tag=common');
    assert.equal(last.total, 10_000);
    assert.deepEqual(last.ids, common.slice(9900, 10_000));
  });

  it('combines the bounced status with a message filter', async () => {
    const both = expected((i) => i % 11 === 0 && i % 7 === 0);
    const r = await search('count=500&offset=0&status=bounced&recipient=busy@example.net&tag=rare');
    assert.equal(r.total, both.length);
    assert.deepEqual(r.ids, both);
    assert.deepEqual((await search('count=10&offset=0&status=bounced&tag=nosuchtag')).ids, []);
  });

  it('applies a date range on top, and finds nothing past the matches', async () => {
    // received_at = t0 + floor(i / 2): i from 2000 to 4001.
    const from = new Date(t0 + 1000).toISOString();
    const to = new Date(t0 + 2000).toISOString();
    const inRange = expected((i) => i % 7 === 0 && i >= 2000 && i <= 4001);
    const r = await search(`count=500&offset=0&recipient=busy@example.net&tag=rare&fromdate=${from}&todate=${to}`);
    assert.equal(r.total, inRange.length);
    assert.deepEqual(r.ids, inRange);
    assert.deepEqual((await search('count=50&offset=1785&recipient=busy@example.net&tag=rare')).ids, []);
  });
});
