import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { SqlDialect } from '../../infra/db/sql-dialect.js';

/**
 * Serializes changes to one server's set of streams, so that two concurrent creates cannot both pass the
 * 10-stream check: a lock on the server's row until the transaction ends (db/row-locks.ts; on SQLite the
 * transaction is already the only writer).
 */
export async function lockServer(trx: Kysely<Database>, sql: SqlDialect, serverId: number): Promise<void> {
  await sql.lockRowsForUpdate(trx, 'servers', [serverId]);
}
