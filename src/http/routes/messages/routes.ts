import type { AppContext } from '../../../domain/app-context.js';
import { checkDepth } from '../../pagination.js';
import { requestSignal } from '../../request-signal.js';
import { serverAuth, type App } from '../../types.js';
import { messageDetails } from '../../../domain/messages/details.js';
import { messageSourceById } from '../../../domain/message-checks/message-source.js';
import { clicksOfMessage, opensOfMessage, searchClicks, searchOpens } from '../../../domain/messages/hits.js';
import { searchMessages } from '../../../domain/messages/search.js';
import { HitSearchQuery, MessageIdParams, MessageSearchQuery, PageOnlyQuery } from './schemas.js';

const base = { tags: ['messages'], security: [{ serverToken: [] }] };
const config = { auth: 'server' } as const;

/** metadata_<key>=<value> query filters (keys keep their case, see http/query.ts). */
function metadataFilters(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (k.startsWith('metadata_') && k.length > 9) out[k.slice(9)] = Array.isArray(v) ? String(v[v.length - 1]) : String(v);
  }
  return out;
}

/**
 * Message search, details, raw source, opens and clicks (docs/reference/messages.md), each also under the
 * hosted service's /messages/outbound/... paths so its SDKs work unchanged.
 */
export default async function messagesRoutes(app: App, ctx: AppContext): Promise<void> {
  for (const prefix of ['/messages', '/messages/outbound']) {
    app.get(prefix, { config, schema: { ...base, querystring: MessageSearchQuery } }, async (req, reply) => {
      checkDepth(req.query.count, req.query.offset);
      return searchMessages(ctx, serverAuth(req.auth).serverId, { ...req.query, metadata: metadataFilters(req.query), signal: requestSignal(reply) });
    });

    app.get(`${prefix}/:messageid/details`, { config, schema: { ...base, params: MessageIdParams } }, async (req) =>
      messageDetails(ctx, serverAuth(req.auth).serverId, req.params.messageid),
    );

    // The source as sent, or composed from the stored message while it waits for delivery.
    app.get(`${prefix}/:messageid/dump`, { config, schema: { ...base, params: MessageIdParams } }, async (req) => ({
      Body: (await messageSourceById(ctx, { serverId: serverAuth(req.auth).serverId }, req.params.messageid)).toString('utf8'),
    }));

    app.get(`${prefix}/opens`, { config, schema: { ...base, querystring: HitSearchQuery } }, async (req) => {
      checkDepth(req.query.count, req.query.offset);
      return searchOpens(ctx, serverAuth(req.auth).serverId, req.query);
    });

    app.get(`${prefix}/opens/:messageid`, { config, schema: { ...base, params: MessageIdParams, querystring: PageOnlyQuery } }, async (req) => {
      checkDepth(req.query.count, req.query.offset);
      return opensOfMessage(ctx, serverAuth(req.auth).serverId, req.params.messageid, req.query);
    });

    app.get(`${prefix}/clicks`, { config, schema: { ...base, querystring: HitSearchQuery } }, async (req) => {
      checkDepth(req.query.count, req.query.offset);
      return searchClicks(ctx, serverAuth(req.auth).serverId, req.query);
    });

    app.get(`${prefix}/clicks/:messageid`, { config, schema: { ...base, params: MessageIdParams, querystring: PageOnlyQuery } }, async (req) => {
      checkDepth(req.query.count, req.query.offset);
      return clicksOfMessage(ctx, serverAuth(req.auth).serverId, req.params.messageid, req.query);
    });
  }
}
