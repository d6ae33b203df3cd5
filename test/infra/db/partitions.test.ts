import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { newMessageId } from '../../../src/domain/accepting/message-id.js';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import { migrations } from '../../../src/infra/db/migrations/index.js';
import { createPartitionsAhead, createPartitionsBetween, idBound, partitionName, PARTITIONED_TABLES, PARTITIONS_AHEAD_DAYS } from '../../../src/infra/db/partitions.js';
import { DAY_MS } from '../../../src/infra/time.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../helpers/database.js';

const NAME = '0023-time-partitions';
const PG_ONLY = TEST_DIALECT === 'postgres' ? false : 'partitioning is PostgreSQL only (SQLite keeps plain tables)';
const CHILDREN = ['message_recipients', 'message_attachments', 'message_events', 'opens', 'clicks'] as const;

async function partitionOf(db: Kysely<any>, table: string, where: string): Promise<string | undefined> {
  return (await sql.raw<{ p: string }>(`select tableoid::regclass::text as p from ${table} where ${where}`).execute(db)).rows[0]?.p;
}
async function tableExists(db: Kysely<any>, name: string): Promise<boolean> {
  const r = await sql<{ n: number }>`select count(*)::int as n from pg_class where relnamespace = current_schema()::regnamespace and relname = ${name}`.execute(db);
  return r.rows[0].n === 1;
}

const message = (id: string, serverId: number, at: number) => ({
  id, server_id: serverId, stream_id: 'outbound', from_email: 'a@example.com', from_raw: 'a@example.com', subject: 's', tag: 't', html_body: null,
  text_body: 'x', reply_to: null, headers: '[]', metadata: '{}', track_opens: 1, track_links: 'None', attachments: '[]', status: 'Sent', sandbox: 0, received_at: at, mime: null,
});
const tracking = (messageId: string, at: number) => ({
  message_id: messageId, server_id: 1, stream_id: 'outbound', recipient: 'r@example.net', tag: null, occurred_at: at, user_agent: 'ua', client_name: 'c',
  client_company: 'c', client_family: 'c', os_name: 'o', os_company: 'o', os_family: 'o', platform: 'p',
});

/** A database with every row kind a message has, written by the release before 0023. */
async function seed(db: Kysely<any>, now: number) {
  await db.insertInto('accounts').values({ name: 'a', created_at: now }).execute();
  await db.insertInto('servers').values({ account_id: 1, name: 's', created_at: now }).execute();
  await db.insertInto('message_streams').values({ server_id: 1, id: 'outbound', name: 'o', type: 'Transactional', created_at: now }).execute();
  const ids = [newMessageId(now - 2 * DAY_MS), newMessageId(now), 'legacy-not-a-uuid'];
  for (const [i, id] of ids.entries()) {
    await db.insertInto('messages').values(message(id, 1, now - (i === 0 ? 2 * DAY_MS : 0))).execute();
    await db.insertInto('message_recipients').values({ message_id: id, server_id: 1, stream_id: 'outbound', kind: 'To', email: `r${i}@example.net`, name: '', status: 'Sent', received_at: now, settled_at: null }).execute();
    await db.insertInto('message_attachments').values({ message_id: id, position: 0, name: 'a.txt', content_type: 'text/plain', content_id: null, content: 'aGk=', size: 2 }).execute();
    await db.insertInto('message_events').values({ message_id: id, server_id: 1, stream_id: 'outbound', type: 'Processed', recipient: 'r@example.net', occurred_at: now, details: '{}' }).execute();
    await db.insertInto('opens').values(tracking(id, now)).execute();
    await db.insertInto('clicks').values({ ...tracking(id, now), original_link: 'https://x', link_hash: 'h', click_location: 'HTML' }).execute();
  }
  return ids;
}

describe('migration 0023: time partitions', () => {
  let tdb: TestDatabase;
  let d: Db;
  let db: Kysely<any>;
  let ids: string[];
  const now = Date.now();
  before(async () => {
    tdb = await createTestDatabase();
    d = openDatabase(tdb.url, tdb.options);
    db = d.db as Kysely<any>;
    for (const name of Object.keys(migrations).sort()) if (name < NAME) await migrations[name]!.up(db, d.dialect);
    ids = await seed(db, now);
    await migrations[NAME]!.up(db, d.dialect);
  });
  after(async () => {
    await d.close();
    await tdb.drop();
  });

  it('keeps every row written before it, on both databases', async () => {
    assert.deepEqual((await db.selectFrom('messages').select('id').orderBy('id').execute()).map((r) => r.id), [...ids].sort());
    for (const t of CHILDREN) {
      const rows = await db.selectFrom(t).select('message_id').orderBy('message_id').execute();
      assert.deepEqual(rows.map((r) => r.message_id), [...ids].sort(), t);
    }
  });

  it('puts each message and its children in the partition of its day, ids of another form in the default one', { skip: PG_ONLY }, async () => {
    for (const t of ['messages', ...CHILDREN]) {
      const key = t === 'messages' ? 'id' : 'message_id';
      const [rel] = (await sql<{ kind: string }>`select relkind as kind from pg_class where oid = ${t}::regclass`.execute(db)).rows;
      assert.equal(rel.kind, 'p', `${t} is partitioned`);
      assert.equal(await partitionOf(db, t, `${key} = '${ids[0]}'`), partitionName(t, Math.floor((now - 2 * DAY_MS) / DAY_MS) * DAY_MS));
      assert.equal(await partitionOf(db, t, `${key} = '${ids[1]}'`), partitionName(t, Math.floor(now / DAY_MS) * DAY_MS));
      assert.equal(await partitionOf(db, t, `${key} = '${ids[2]}'`), `${t}_default`);
    }
    // Made ahead by the migration: tomorrow (the periodic task makes the rest of the week).
    assert.ok(await tableExists(db, partitionName('messages', Math.floor(now / DAY_MS) * DAY_MS + DAY_MS)));
  });

  it('continues the id sequences and keeps the constraints: a message id once, an open per recipient once', { skip: PG_ONLY }, async () => {
    const before = await db.selectFrom('message_events').select((eb) => eb.fn.max('id').as('m')).executeTakeFirstOrThrow();
    const [e] = await sql<{ id: number }>`insert into message_events (message_id, server_id, stream_id, type, recipient, occurred_at, details)
      values (${ids[1]}, 1, 'outbound', 'Delivered', 'r@example.net', ${now}, '{}') returning id`.execute(db).then((r) => r.rows);
    assert.ok(Number(e.id) > Number(before.m));
    await assert.rejects(db.insertInto('messages').values(message(ids[1], 1, now)).execute(), /duplicate key/);
    await assert.rejects(db.insertInto('opens').values(tracking(ids[1], now)).execute(), /duplicate key/);
    // The server's foreign key stays: a message of an unknown server is refused.
    await assert.rejects(db.insertInto('messages').values(message(newMessageId(now), 999, now)).execute(), /foreign key/);
  });

  it('reads a message by id from one partition (pruned), and its children too', { skip: PG_ONLY }, async () => {
    const plan = async (q: string) => (await sql.raw<{ 'QUERY PLAN': string }>(`explain ${q}`).execute(db)).rows.map((r) => r['QUERY PLAN']).join('\n');
    const one = await plan(`select * from messages where id = '${ids[1]}'`);
    assert.match(one, new RegExp(partitionName('messages', Math.floor(now / DAY_MS) * DAY_MS)));
    assert.doesNotMatch(one, /Append/, one);
    const events = await plan(`select * from message_events where message_id in ('${ids[0]}', '${ids[1]}') order by occurred_at`);
    assert.equal((events.match(/message_events_p\d+/g) ?? []).length, 2, events);
  });
});

describe('partitions made ahead', { skip: PG_ONLY }, () => {
  let tdb: TestDatabase;
  let d: Db;
  let db: Kysely<any>;
  const day = Date.UTC(2026, 2, 10);
  before(async () => {
    tdb = await createTestDatabase();
    d = openDatabase(tdb.url, tdb.options);
    db = d.db as Kysely<any>;
    for (const name of Object.keys(migrations).sort()) await migrations[name]!.up(db, d.dialect);
    await db.insertInto('accounts').values({ name: 'a', created_at: day }).execute();
    await db.insertInto('servers').values({ account_id: 1, name: 's', created_at: day }).execute();
  });
  after(async () => {
    await d.close();
    await tdb.drop();
  });

  it('makes the missing days from today to a week ahead, once', async () => {
    assert.equal(await tableExists(db, partitionName('messages', day)), false);
    const made = await createPartitionsAhead(db, day + 5 * 3_600_000);
    assert.equal(made, PARTITIONED_TABLES.length * (PARTITIONS_AHEAD_DAYS + 1));
    for (let i = 0; i <= PARTITIONS_AHEAD_DAYS; i++) {
      for (const { name: t } of PARTITIONED_TABLES) assert.ok(await tableExists(db, partitionName(t, day + i * DAY_MS)), `${t} +${i}`);
    }
    assert.equal(await createPartitionsAhead(db, day), 0, 'nothing left to make');
  });

  it('leaves a day whose rows already sit in the default partition to the next days (no move under live traffic)', async () => {
    const today = day + 20 * DAY_MS;
    const id = newMessageId(today + 1000);
    await db.insertInto('messages').values(message(id, 1, today + 1000)).execute();
    const made = await createPartitionsAhead(db, today + 2000, 1);
    assert.equal(made, PARTITIONED_TABLES.length - 1 + PARTITIONED_TABLES.length, 'today for the tables with no row of it in their default partition (all but messages), and the next day for all');
    assert.equal(await tableExists(db, partitionName('messages', today)), false);
    assert.ok(await tableExists(db, partitionName('message_recipients', today)));
    assert.ok(await tableExists(db, partitionName('messages', today + DAY_MS)));
    assert.equal(await partitionOf(db, 'messages', `id = '${id}'`), 'messages_default', 'the row stays where it is');
  });

  it('moves rows of that day out of the default partition when it makes a day late', async () => {
    const late = day - 3 * DAY_MS;
    const id = newMessageId(late + 1000);
    await db.insertInto('messages').values(message(id, 1, late + 1000)).execute();
    await db.insertInto('message_recipients').values({ message_id: id, server_id: 1, stream_id: 'outbound', kind: 'To', email: 'r@example.net', name: '', status: 'Sent', received_at: late, settled_at: null }).execute();
    assert.equal(await partitionOf(db, 'messages', `id = '${id}'`), 'messages_default');
    await createPartitionsBetween(db, late, late);
    assert.equal(await partitionOf(db, 'messages', `id = '${id}'`), partitionName('messages', late));
    assert.equal(await partitionOf(db, 'message_recipients', `message_id = '${id}'`), partitionName('message_recipients', late));
    assert.ok(idBound(late) < id && id < idBound(late + DAY_MS));
  });
});
