// GET /messages' metadata_<key>=<value> filters, answered by message_metadata (migration 0039): one row per
// Metadata field of a message, written with it (accepting/store.ts), deleted with it. Its index (server,
// stream, key, value, received_at, message_id) holds a key/value's messages in the search's order, so a
// page is cut from it as from the recipients' index, whatever the other messages of the server.
import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../app-context.js';

type Query = SelectQueryBuilder<any, any, any>;

/**
 * (message_id, received_at) of the messages of the stream carrying every field of `fields` (at least one):
 * the first read from the index, any further one probed by the primary key (message_id, key). `bounds` are
 * conditions on `mm.received_at` and `mm.message_id` (dates, keyset). Exact: the table holds each value as
 * given, and keys match case-sensitively, as in the JSON.
 */
export function metadataHits(ctx: AppContext, serverId: number, stream: string, fields: Array<[string, string]>, bounds: RawBuilder<SqlBool>[]): Query {
  const [[key, value], ...rest] = fields as [[string, string], ...Array<[string, string]>];
  let h = ctx.db
    .selectFrom('message_metadata as mm')
    .select(['mm.message_id', 'mm.received_at'])
    .where('mm.server_id', '=', serverId)
    .where('mm.stream_id', '=', stream)
    .where('mm.key', '=', key)
    .where('mm.value', '=', value);
  for (const [k, v] of rest) h = h.where(sql<SqlBool>`exists (select 1 from message_metadata x where x.message_id = mm.message_id and x.key = ${k} and x.value = ${v})`);
  for (const b of bounds) h = h.where(b);
  return h as unknown as Query;
}

/** `messages` carries the field: a probe of message_metadata's primary key, for a search other filters drive. */
export const hasMetadataField = (serverId: number, key: string, value: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`exists (select 1 from message_metadata mm where mm.message_id = messages.id and mm.key = ${key} and mm.value = ${value} and mm.server_id = ${serverId})`;
