import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Db } from '../../../src/infra/db/database.js';
import { migrations } from '../../../src/infra/db/migrations/index.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../helpers/database.js';

const NAME = '0013-jobs-message-id';

describe('migration 0013: jobs.message_id', () => {
  let tdb: TestDatabase;
  let d: Db;
  let db: Kysely<any>;
  before(async () => {
    tdb = await createTestDatabase();
    d = openDatabase(tdb.url, tdb.options);
    db = d.db as Kysely<any>;
    // The schema as the previous release left it.
    for (const name of Object.keys(migrations).sort()) {
      if (name >= NAME) break;
      await migrations[name]!.up(db, d.dialect);
    }
  });
  after(async () => {
    await d.close();
    await tdb.drop();
  });

  it('backfills the message id of queued jobs from their payload, on both databases', async () => {
    const job = (queue: string, payload: unknown) => ({ queue, payload: JSON.stringify(payload), run_at: 1, attempts: 0, created_at: 1 });
    await db
      .insertInto('jobs')
      .values([
        job('deliver', { messageId: 'a1b2c3d4-0000-4000-8000-000000000001', domain: 'example.org' }),
        job('deliver', { domain: 'example.net', messageId: 'a1b2c3d4-0000-4000-8000-000000000002' }),
        job('webhook', { notificationId: 7 }),
        // Named only in text, nested, or not as a string: no message id.
        job('system-mail', { to: 'x@example.org', text: 'the "messageId" key' }),
        job('other', { event: { messageId: 'nested' } }),
        job('other', { messageId: 42 }),
      ])
      .execute();
    await migrations[NAME]!.up(db, d.dialect);
    const rows = await db.selectFrom('jobs').select(['queue', 'message_id']).orderBy('id').execute();
    assert.deepEqual(rows, [
      { queue: 'deliver', message_id: 'a1b2c3d4-0000-4000-8000-000000000001' },
      { queue: 'deliver', message_id: 'a1b2c3d4-0000-4000-8000-000000000002' },
      { queue: 'webhook', message_id: null },
      { queue: 'system-mail', message_id: null },
      { queue: 'other', message_id: null },
      { queue: 'other', message_id: null },
    ]);
  });

  it('indexes message_id, leaving out jobs that concern no message', async () => {
    const def =
      TEST_DIALECT === 'postgres'
        ? (await sql<{ def: string }>`select indexdef as def from pg_indexes where schemaname = current_schema() and indexname = 'jobs_message'`.execute(db)).rows[0]?.def
        : (await sql<{ def: string }>`select sql as def from sqlite_master where type = 'index' and name = 'jobs_message'`.execute(db)).rows[0]?.def;
    assert.ok(def, 'the index exists');
    assert.match(def, /\(message_id\)\s+WHERE\s+\(?message_id IS NOT NULL\)?/i);
  });
});
