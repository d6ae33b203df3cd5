// Message streams (docs/reference/streams.md; codes 1221-1237). Thin: the rules live in
// src/domain/streams/.
import { Type } from 'typebox';
import type { AppContext } from '../../../domain/app-context.js';
import { serverAuth, type App } from '../../types.js';
import { archiveStream, unarchiveStream } from '../../../domain/streams/archive.js';
import { createStream } from '../../../domain/streams/create-stream.js';
import { getStream } from '../../../domain/streams/find-stream.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { streamView } from '../../../domain/streams/stream-view.js';
import { updateStream } from '../../../domain/streams/update-stream.js';
import { iso } from '../../../infra/time.js';
import { ArchiveRecord, ListStreamsQuery, StreamBody, StreamParams, StreamRecord } from './schemas.js';

const base = { tags: ['message streams'], security: [{ serverToken: [] }] };

export default async function streamRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    '/message-streams',
    {
      config: { auth: 'server' },
      schema: { ...base, querystring: ListStreamsQuery, response: { 200: Type.Object({ MessageStreams: Type.Array(StreamRecord), TotalCount: Type.Integer() }) } },
    },
    async (req) => {
      const { serverId } = serverAuth(req.auth);
      const rows = await listStreams(ctx.db, serverId, { type: req.query.messagestreamtype, includeArchived: req.query.includearchivedstreams });
      return { MessageStreams: rows.map(streamView), TotalCount: rows.length };
    },
  );

  app.get(
    '/message-streams/:id',
    { config: { auth: 'server' }, schema: { ...base, params: StreamParams, response: { 200: StreamRecord } } },
    async (req) => streamView(await getStream(ctx.db, serverAuth(req.auth).serverId, req.params.id)),
  );

  app.patch(
    '/message-streams/:id',
    { config: { auth: 'server' }, schema: { ...base, params: StreamParams, body: StreamBody, response: { 200: StreamRecord } } },
    async (req) => streamView(await updateStream(ctx, serverAuth(req.auth).serverId, req.params.id, (req.body ?? {}) as Record<string, unknown>)),
  );

  app.post(
    '/message-streams',
    { config: { auth: 'server' }, schema: { ...base, body: StreamBody, response: { 200: StreamRecord } } },
    async (req) => streamView(await createStream(ctx, serverAuth(req.auth).serverId, (req.body ?? {}) as Record<string, unknown>)),
  );

  app.post(
    '/message-streams/:id/archive',
    { config: { auth: 'server' }, schema: { ...base, params: StreamParams, response: { 200: ArchiveRecord } } },
    async (req) => {
      const row = await archiveStream(ctx, serverAuth(req.auth).serverId, req.params.id);
      return { ID: row.id, ServerID: row.server_id, ExpectedPurgeDate: iso(row.expected_purge_at) };
    },
  );

  app.post(
    '/message-streams/:id/unarchive',
    { config: { auth: 'server' }, schema: { ...base, params: StreamParams, response: { 200: StreamRecord } } },
    async (req) => streamView(await unarchiveStream(ctx, serverAuth(req.auth).serverId, req.params.id)),
  );
}
