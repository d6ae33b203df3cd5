// jobs.message_id: the message a job concerns, as a column. Until now only the payload JSON named it, so
// cancelling a purged stream's deliveries read the whole queue and searched every payload, and the DKIM
// key-removal check queried inside the JSON with different SQL per database. The index is partial: jobs
// that concern no message (webhook notifications, system mail) add no entry to it.
//
// Existing rows are backfilled from the payload's top-level "messageId" (the delivery payload; no other
// queue's payload has that key), in this migration's transaction.
import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, d: MigrationDialect): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('message_id', 'text').execute();
  // The LIKE narrows the rows whose JSON is parsed; every payload is JSON.stringify output.
  const named = sql`payload like '%"messageId"%'`;
  if (d === 'postgres') {
    await sql`update jobs set message_id = payload::jsonb ->> 'messageId'
      where ${named} and jsonb_typeof(payload::jsonb -> 'messageId') = 'string'`.execute(db);
  } else {
    await sql`update jobs set message_id = json_extract(payload, '$.messageId')
      where ${named} and json_valid(payload) and json_type(payload, '$.messageId') = 'text'`.execute(db);
  }
  await sql`create index jobs_message on jobs (message_id) where message_id is not null`.execute(db);
}
