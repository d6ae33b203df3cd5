import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import { parseStreamType } from './rules.js';
import type { StreamRow } from './stream-view.js';

export interface StreamFilter {
  /** All | Transactional | Broadcasts | Inbound (any case); default All. */
  type?: string;
  includeArchived?: boolean;
}

/** A server's streams, oldest first (the defaults come first). At most 10 exist, so no paging. */
export async function listStreams(db: Kysely<Database>, serverId: number, f: StreamFilter): Promise<StreamRow[]> {
  let q = db.selectFrom('message_streams').selectAll().where('server_id', '=', serverId);
  if (f.type !== undefined && f.type.trim() !== '' && f.type.trim().toLowerCase() !== 'all') {
    const type = parseStreamType(f.type);
    if (!type) throw new ApiError(ErrorCode.StreamInvalidType, 'MessageStreamType must be All, Transactional, Broadcasts or Inbound.');
    q = q.where('type', '=', type);
  }
  if (!f.includeArchived) q = q.where('archived_at', 'is', null);
  return q.orderBy('created_at').orderBy('is_default', 'desc').orderBy('id').execute();
}
