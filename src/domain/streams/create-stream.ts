// POST /message-streams. The body comes in two published forms: the field table's {ServerID, Name,
// MessageStreamType} and the sample's {ID, Name, MessageStreamType, Description}; both are accepted, and
// without an ID one is derived from the Name.
import type { AppContext } from '../app-context.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { streamIpPool } from './ip-pool-setting.js';
import { lockServer } from './lock-server.js';
import {
  checkStreamDescription,
  checkStreamId,
  checkStreamName,
  checkUnsubscribeHandling,
  deriveStreamId,
  MAX_INBOUND_STREAMS,
  MAX_STREAMS_PER_SERVER,
  parseStreamType,
  withSuffix,
} from './rules.js';
import type { StreamRow } from './stream-view.js';

export async function createStream(ctx: AppContext, serverId: number, body: Record<string, unknown>): Promise<StreamRow> {
  if (body.ServerID !== undefined && body.ServerID !== null && String(body.ServerID).trim() !== String(serverId)) {
    throw new ApiError(ErrorCode.InvalidRequestFields, 'ServerID does not match the server of the API token.');
  }
  const type = parseStreamType(body.MessageStreamType);
  if (!type) throw new ApiError(ErrorCode.StreamInvalidType, 'MessageStreamType must be Transactional, Broadcasts or Inbound.');
  const name = checkStreamName(body.Name);
  const chosenId = body.ID === undefined || body.ID === null ? null : checkStreamId(body.ID);
  const description = checkStreamDescription(body.Description);
  const handling = checkUnsubscribeHandling(body.SubscriptionManagementConfiguration, type);
  const ipPool = streamIpPool(ctx.config, body.IpPool, type);

  const now = ctx.clock.now();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await lockServer(trx, ctx.database.sql, serverId);
      const existing = await trx.selectFrom('message_streams').select(['id', 'type']).where('server_id', '=', serverId).execute();
      // Archived streams still count: they exist (and can be restored) until they are purged.
      if (existing.length >= MAX_STREAMS_PER_SERVER) {
        throw new ApiError(ErrorCode.StreamLimit, `A server can have at most ${MAX_STREAMS_PER_SERVER} message streams, including the default streams.`);
      }
      if (type === 'Inbound' && existing.filter((s) => s.type === 'Inbound').length >= MAX_INBOUND_STREAMS) {
        throw new ApiError(ErrorCode.StreamInboundLimit, 'A server can have only one inbound message stream.');
      }
      const taken = new Set(existing.map((s) => s.id));
      let id: string;
      if (chosenId !== null) {
        if (taken.has(chosenId)) throw new ApiError(ErrorCode.StreamIdExists, `A message stream with the ID '${chosenId}' already exists.`);
        id = chosenId;
      } else {
        const base = deriveStreamId(name);
        id = base;
        for (let n = 2; taken.has(id); n++) id = withSuffix(base, n);
      }
      return trx
        .insertInto('message_streams')
        .values({
          server_id: serverId,
          id,
          name,
          description,
          type,
          is_default: 0,
          created_at: now,
          // Null until the stream is first changed, as the hosted service answers.
          updated_at: null,
          archived_at: null,
          expected_purge_at: null,
          unsubscribe_handling: handling ?? null,
          ip_pool: ipPool ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (err) {
    // Another process created the same ID between our check and our insert.
    if (isUniqueViolation(err)) throw new ApiError(ErrorCode.StreamIdExists, 'A message stream with this ID already exists.');
    throw err;
  }
}
