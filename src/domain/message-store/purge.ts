// Deleting messages, with everything recorded about them: the one way the domain deletes a message
// (retention, stream purges, data removals, server deletion). The statements are infra/db's
// (partitions-cascade.ts), as they differ between SQLite's cascading foreign keys and PostgreSQL's day
// partitions.
import type { Kysely } from 'kysely';
import { deleteMessagesCascading } from '../../infra/db/partitions-cascade.js';
import type { Database } from '../../infra/db/schema.js';

/** Deletes the messages `ids` (of `serverId` when given) and their recipients, metadata, attachments,
 * events, opens and clicks, in one transaction (the caller's, if `db` is one); returns how many messages
 * were deleted. */
export function deleteMessageRows(db: Kysely<Database>, ids: string[], serverId?: number): Promise<number> {
  return deleteMessagesCascading(db, ids, serverId);
}
