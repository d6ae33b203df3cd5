import type { Kysely } from 'kysely';
import type { Dialect } from '../../infra/db/database.js';
import { lockRowsForUpdate } from '../../infra/db/row-locks.js';
import type { Database } from '../../infra/db/schema.js';

/**
 * Serializes changes to one server's set of streams, so that two concurrent creates cannot both pass the
 * 10-stream check: a lock on the server's row until the transaction ends (db/row-locks.ts; on SQLite the
 * transaction is already the only writer).
 */
export async function lockServer(trx: Kysely<Database>, dialect: Dialect, serverId: number): Promise<void> {
  await lockRowsForUpdate(trx, dialect, 'servers', [serverId]);
}
