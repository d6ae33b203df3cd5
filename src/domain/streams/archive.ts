// The stream state machine (docs/reference/streams.md, "States and transitions"): active -> archived by POST
// archive (not for default streams), archived -> active by POST unarchive before the purge date, archived ->
// purged 45 days after archiving (purge.ts). The purge date is the boundary: from that instant on, unarchive is
// refused and the purge task may delete the stream.
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { getStream } from './find-stream.js';
import { PURGE_AFTER_MS } from './rules.js';
import type { StreamRow } from './stream-view.js';

export async function archiveStream(ctx: AppContext, serverId: number, id: string): Promise<StreamRow> {
  const row = await getStream(ctx.db, serverId, id);
  if (row.is_default === 1) throw new ApiError(ErrorCode.StreamDefaultCannotArchive, 'Default message streams cannot be archived.');
  // Archiving twice keeps the first date: a retried request must not push the purge further out.
  if (row.archived_at !== null) return row;
  const now = ctx.clock.now();
  const updated = await ctx.db
    .updateTable('message_streams')
    .set({ archived_at: now, expected_purge_at: now + PURGE_AFTER_MS, updated_at: now })
    .where('server_id', '=', serverId)
    .where('id', '=', row.id)
    .where('archived_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return updated ?? getStream(ctx.db, serverId, id);
}

export async function unarchiveStream(ctx: AppContext, serverId: number, id: string): Promise<StreamRow> {
  const row = await getStream(ctx.db, serverId, id);
  if (row.archived_at === null) return row;
  const now = ctx.clock.now();
  if (row.expected_purge_at !== null && now >= row.expected_purge_at) {
    throw new ApiError(ErrorCode.StreamCannotUnarchive, 'The message stream can no longer be unarchived: its purge date has passed.');
  }
  const updated = await ctx.db
    .updateTable('message_streams')
    .set({ archived_at: null, expected_purge_at: null, updated_at: now })
    .where('server_id', '=', serverId)
    .where('id', '=', row.id)
    // The same condition in the write, so that a purge starting now cannot race a restore.
    .where('expected_purge_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  if (updated) return updated;
  const again = await getStream(ctx.db, serverId, id);
  if (again.archived_at === null) return again;
  throw new ApiError(ErrorCode.StreamCannotUnarchive, 'The message stream can no longer be unarchived: its purge date has passed.');
}
