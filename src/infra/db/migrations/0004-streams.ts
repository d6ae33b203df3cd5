// Schema changes for streams, suppressions and unsubscribe: how a stream handles unsubscribes, and the
// indexes behind the purge task and the suppression dump filters.
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<any>, _d: MigrationDialect): Promise<void> {
  // None | Postmark | Custom (the hosted service's SubscriptionManagementConfiguration.UnsubscribeHandlingType);
  // null means the default of the stream's type.
  await db.schema.alterTable('message_streams').addColumn('unsubscribe_handling', 'text').execute();
  // The purge task looks for archived streams whose purge date has passed.
  await db.schema.createIndex('message_streams_purge').on('message_streams').columns(['expected_purge_at']).execute();
  // The dump filters by date and lists newest first within one stream.
  await db.schema.createIndex('suppressions_stream_time').on('suppressions').columns(['server_id', 'stream_id', 'created_at']).execute();
}
