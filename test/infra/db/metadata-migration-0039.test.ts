// Migration 0039 backfills message_metadata from the messages stored before it: the same rows accepting
// writes (domain/accepting/store.ts), string values only, any key; and the table follows the day partitions
// of PostgreSQL like the other children of messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrations } from '../../../src/infra/db/migrations/index.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const NAME = '0039-metadata-index';
const FROM = 'app@shop.example';

describe('migration 0039: message_metadata backfilled', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
  });
  after(() => s.close());

  const rows = async () =>
    (await s.ctx.db.selectFrom('message_metadata').selectAll().orderBy('message_id').orderBy('key').execute()).map((r) => ({ ...r, received_at: Number(r.received_at) }));

  it('writes the rows accepting writes, for every stored message, string values only', async () => {
    const metas = [{ customer: 'c-1', Plan: 'Pro' }, { 'a&b=c': 'ünï', '🔑': '"\\', ' lead': '' }, {}, { x: 'y' }];
    for (const Metadata of metas) {
      const r = await s.request('POST', '/email', { body: { From: FROM, To: 'a@dest.example', Subject: 's', TextBody: 'x', Metadata } });
      assert.equal(r.status, 200, r.text);
    }
    const written = await rows();
    assert.equal(written.length, 6);
    // Rows another writer could have left: values that are not strings, JSON that is not an object.
    const id = (n: number) => `00000000-0000-7000-8000-${String(100000000000 + n)}`;
    for (const [n, metadata] of [[1, '{"n": 1, "b": true, "o": {"k": "v"}, "s": "kept"}'], [2, '[]'], [3, 'null'], [4, '"text"']] as const) {
      await sql`insert into messages (id, server_id, stream_id, from_email, from_raw, subject, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at)
        values (${id(n)}, ${s.serverId}, 'outbound', 'a@b.example', 'a@b.example', 's', '[]', ${metadata}, 0, 'None', '[]', 'Sent', 0, ${1000 + n})`.execute(s.ctx.db);
    }
    await sql`drop index messages_sandbox_tag`.execute(s.ctx.db);
    await sql`drop table message_metadata`.execute(s.ctx.db);
    await migrations[NAME]!.up(s.ctx.db, s.ctx.database.dialect);
    const backfilled = await rows();
    const extra = { message_id: id(1), key: 's', server_id: s.serverId, stream_id: 'outbound', value: 'kept', received_at: 1001 };
    assert.deepEqual(backfilled, [extra, ...written].sort((a, b) => (a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : a.key < b.key ? -1 : 1)));
    const found = await s.request('GET', `/messages/outbound?count=50&offset=0&metadata_${encodeURIComponent('a&b=c')}=${encodeURIComponent('ünï')}`);
    assert.equal(found.body.TotalCount, 1, found.text);
  });

  it('is partitioned by day on PostgreSQL, as the other children of messages', { skip: process.env.MAILROOM_TEST_DB !== 'postgres' }, async () => {
    const r = await sql<{ n: number }>`select count(*)::int as n from pg_inherits i join pg_class p on p.oid = i.inhparent where p.relname = 'message_metadata' and p.relnamespace = current_schema()::regnamespace`.execute(s.ctx.db);
    const m = await sql<{ n: number }>`select count(*)::int as n from pg_inherits i join pg_class p on p.oid = i.inhparent where p.relname = 'messages' and p.relnamespace = current_schema()::regnamespace`.execute(s.ctx.db);
    assert.equal(r.rows[0]!.n, m.rows[0]!.n, 'a partition per partition of messages, and the default');
  });
});
