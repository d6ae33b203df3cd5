// Looking up one stream of one server. IDs are lowercase by rule, so a path's ID is compared lowercased:
// clients that write `/message-streams/Outbound` still find `outbound`.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import type { StreamRow } from './stream-view.js';

export function streamKey(id: string): string {
  return id.trim().toLowerCase();
}

export async function findStream(db: Kysely<Database>, serverId: number, id: string): Promise<StreamRow | undefined> {
  return db.selectFrom('message_streams').selectAll().where('server_id', '=', serverId).where('id', '=', streamKey(id)).executeTakeFirst();
}

/** The stream, or 1226 (stream not found) in the hosted service's words, which its clients' suites compare. */
export async function getStream(db: Kysely<Database>, serverId: number, id: string): Promise<StreamRow> {
  const row = await findStream(db, serverId, id);
  if (!row) throw new ApiError(ErrorCode.StreamNotFound, "The message stream for the provided 'ID' was not found.");
  return row;
}
