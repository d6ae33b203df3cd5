import type { Kysely } from 'kysely';
import type { Dialect } from '../../infra/db/database.js';
import type { Database } from '../../infra/db/schema.js';

/**
 * Serializes changes to one server's set of streams, so that two concurrent creates cannot both pass the
 * 10-stream check. PostgreSQL: a row lock on the server. SQLite: writers are already serialized (one
 * connection per process, and the database file's write lock across processes).
 */
export async function lockServer(trx: Kysely<Database>, dialect: Dialect, serverId: number): Promise<void> {
  if (dialect === 'postgres') await trx.selectFrom('servers').select('id').where('id', '=', serverId).forUpdate().execute();
}
