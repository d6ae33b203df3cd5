import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { purgeExpired } from '../../../src/domain/retention/purge.js';
import { dayStart, partitionName, PARTITIONED_TABLES } from '../../../src/infra/db/partitions.js';
import { DAY_MS } from '../../../src/infra/time.js';
import { TEST_DIALECT } from '../../helpers/database.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'keep@example.com';
const D0 = Date.UTC(2026, 5, 1, 10, 0, 0);
const DAY0 = dayStart(D0);

describe('retention by day partitions (PostgreSQL)', { skip: TEST_DIALECT === 'postgres' ? false : 'partitioning is PostgreSQL only; SQLite purges rows (purge.test.ts)' }, () => {
  let s: TestService;
  let longToken: string;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    s.clock.freeze(D0);
    assert.equal((await s.request('PUT', '/server', { body: { RetentionDays: 7 } })).status, 200);
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Long memory', RetentionDays: 30 } });
    longToken = other.body.ApiTokens[0];
  });
  after(() => s.close());

  const send = async (token?: string) => {
    const r = await s.request('POST', '/email', {
      token,
      body: { From: FROM, To: 'r@example.net', Subject: 's', HtmlBody: '<p>x</p>', Attachments: [{ Name: 'a.txt', Content: 'aGk=', ContentType: 'text/plain' }] },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const rowsOf = async (id: string) => {
    const out: Record<string, number> = {};
    for (const t of PARTITIONED_TABLES) {
      const key = t.key === 'id' ? 'id' : 'message_id';
      out[t.name] = (await sql.raw<{ n: number }>(`select count(*)::int as n from ${t.name} where ${key} = '${id}'`).execute(s.ctx.db)).rows[0].n;
    }
    return out;
  };
  const none = Object.fromEntries(PARTITIONED_TABLES.map((t) => [t.name, 0]));
  const exists = async (table: string) =>
    (await sql<{ n: number }>`select count(*)::int as n from pg_class where relnamespace = current_schema()::regnamespace and relname = ${table}`.execute(s.ctx.db)).rows[0].n === 1;
  const partitionOf = async (id: string) => (await sql<{ p: string }>`select tableoid::regclass::text as p from messages where id = ${id}`.execute(s.ctx.db)).rows[0]?.p;

  it('the periodic task makes the partitions ahead; a message lands in its day; expired days are dropped whole', async () => {
    await s.ctx.scheduler.runAll(); // partitions-ahead: today and a week ahead
    for (const t of PARTITIONED_TABLES) assert.ok(await exists(partitionName(t.name, DAY0 + 7 * DAY_MS)), t.name);

    const short = await send();
    const long = await send(longToken);
    assert.equal(await partitionOf(short), partitionName('messages', DAY0));
    assert.equal(await partitionOf(long), partitionName('messages', DAY0));
    const full = await rowsOf(long);
    assert.ok(full.message_recipients === 1 && full.message_attachments === 1 && full.message_events >= 1, JSON.stringify(full));

    // 7 days and 1 ms later: the 7-day server's message is deleted by rows (its day is kept for the 30-day
    // server), with everything recorded about it; the 30-day server's message stays.
    s.clock.freeze(D0 + 7 * DAY_MS + 1);
    const first = await purgeExpired(s.ctx, s.clock.now());
    assert.deepEqual(first, { messages: 1, bounces: 0, partitions: 0, dmarcReports: 0 });
    assert.deepEqual(await rowsOf(short), none);
    assert.ok(await exists(partitionName('messages', DAY0)));
    assert.equal((await rowsOf(long)).messages, 1);

    // A later message of the long server, in a later day made by the task.
    s.clock.freeze(D0 + 29 * DAY_MS);
    await s.ctx.scheduler.runAll();
    const newer = await send(longToken);
    assert.equal(await partitionOf(newer), partitionName('messages', DAY0 + 29 * DAY_MS));

    // Still inside its day's 30 days: kept (the longest retention goes by the day).
    s.clock.freeze(DAY0 + 31 * DAY_MS - 1);
    assert.equal((await purgeExpired(s.ctx, s.clock.now())).partitions, 0);
    assert.equal((await rowsOf(long)).messages, 1);

    // The whole day is older than 30 days: its partition of every table is dropped, no row deleted.
    s.clock.freeze(DAY0 + 31 * DAY_MS);
    const dropped = await purgeExpired(s.ctx, s.clock.now());
    assert.equal(dropped.messages, 0, 'nothing deleted row by row');
    assert.ok(dropped.partitions >= 1);
    for (const t of PARTITIONED_TABLES) assert.equal(await exists(partitionName(t.name, DAY0)), false, `${t.name} of day 0 dropped`);
    const inherits = await sql<{ n: number }>`select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where c.relnamespace = current_schema()::regnamespace and c.relname like ${'%_p' + new Date(DAY0).toISOString().slice(0, 10).replace(/-/g, '')}`.execute(s.ctx.db);
    assert.equal(inherits.rows[0].n, 0);
    assert.deepEqual(await rowsOf(long), none);
    assert.equal((await s.request('GET', `/messages/outbound/${long}/details`, { token: longToken })).body.ErrorCode, 701);
    assert.equal((await rowsOf(newer)).messages, 1, 'a newer message is kept');
    assert.equal((await s.request('GET', `/messages/outbound/${newer}/details`, { token: longToken })).status, 200);
  });
});
