// Deleting messages with everything recorded about them. SQLite: the children's foreign keys cascade
// (ON DELETE CASCADE, migrations 0001 and 0005). PostgreSQL: migration 0023 partitioned these tables and
// dropped those foreign keys (a referenced partition could not be dropped whole), so the children are
// deleted here by name, each statement pruned to the partitions of the given ids. Retention, stream purges,
// data removals and server deletion all delete messages through this function.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { dialectOf } from './util.js';
import { PARTITIONED_TABLES } from './partitions.js';

/** Deletes the messages `ids` (of `serverId` when given) and their recipients, attachments, events, opens
 * and clicks, in one transaction (the caller's, if it is one); returns how many messages were deleted. */
export async function deleteMessagesCascading(db: Kysely<Database>, ids: string[], serverId?: number): Promise<number> {
  if (ids.length === 0) return 0;
  if (dialectOf(db) !== 'postgres') return deleteMessages(db, ids, serverId);
  if (!db.isTransaction) return db.transaction().execute((trx) => deleteMessagesCascading(trx, ids, serverId));
  // The messages first: with serverId given, only those of that server are deleted, and only their
  // children follow.
  const mine = serverId === undefined ? ids : (await db.selectFrom('messages').select('id').where('server_id', '=', serverId).where('id', 'in', ids).execute()).map((r) => r.id);
  if (mine.length === 0) return 0;
  const children = db as unknown as Kysely<Record<string, { message_id: string }>>;
  for (const t of PARTITIONED_TABLES) if (t.name !== 'messages') await children.deleteFrom(t.name).where('message_id', 'in', mine).execute();
  return deleteMessages(db, mine);
}

async function deleteMessages(db: Kysely<Database>, ids: string[], serverId?: number): Promise<number> {
  let q = db.deleteFrom('messages').where('id', 'in', ids);
  if (serverId !== undefined) q = q.where('server_id', '=', serverId);
  return Number((await q.executeTakeFirst()).numDeletedRows);
}
