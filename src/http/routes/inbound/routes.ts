import type { AppContext } from '../../../domain/app-context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { bypassInbound, inboundDetails, retryInbound, searchInbound } from '../../../domain/inbound/query.js';
import { createRule, deleteRule, listRules } from '../../../domain/inbound/rules.js';
import { inboundStats } from '../../../domain/inbound/stats.js';
import { checkDepth, MAX_ROW_ID } from '../../pagination.js';
import { serverAuth, type App } from '../../types.js';
import { InboundIdParams, InboundSearchQuery, InboundStatsQuery, RuleBody, RuleIdParams, RulesQuery } from './schemas.js';

const messages = { tags: ['inbound'], security: [{ serverToken: [] }] };
const config = { auth: 'server', validationErrorCode: ErrorCode.MessageQueryError } as const;
const rulesConfig = { auth: 'server' } as const;

function ruleId(text: string): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1 || Number(text) > MAX_ROW_ID) throw new ApiError(ErrorCode.NotFound, `Inbound rule ${text.slice(0, 30)} not found.`);
  return Number(text);
}

/** Inbound messages and inbound block rules of the token's server (docs: "Messages", "Inbound rules triggers"). */
export default async function inboundRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get('/messages/inbound', { config, schema: { ...messages, querystring: InboundSearchQuery } }, async (req) => {
    checkDepth(req.query.count, req.query.offset);
    return searchInbound(ctx, serverAuth(req.auth).serverId, req.query);
  });

  app.get('/messages/inbound/:messageid/details', { config, schema: { ...messages, params: InboundIdParams } }, async (req) =>
    inboundDetails(ctx, serverAuth(req.auth).serverId, req.params.messageid),
  );

  app.put('/messages/inbound/:messageid/bypass', { config, schema: { ...messages, params: InboundIdParams } }, async (req) =>
    bypassInbound(ctx, serverAuth(req.auth).serverId, req.params.messageid),
  );

  app.put('/messages/inbound/:messageid/retry', { config, schema: { ...messages, params: InboundIdParams } }, async (req) =>
    retryInbound(ctx, serverAuth(req.auth).serverId, req.params.messageid),
  );

  app.get('/stats/inbound', { config: { auth: 'server', validationErrorCode: ErrorCode.StatsQueryError }, schema: { ...messages, querystring: InboundStatsQuery } }, async (req) =>
    inboundStats(ctx, serverAuth(req.auth).serverId, req.query),
  );

  const rules = { tags: ['inbound'], security: [{ serverToken: [] }] };
  app.get('/triggers/inboundrules', { config: rulesConfig, schema: { ...rules, querystring: RulesQuery } }, async (req) =>
    listRules(ctx, serverAuth(req.auth).serverId, req.query.count, req.query.offset),
  );

  app.post('/triggers/inboundrules', { config: rulesConfig, schema: { ...rules, body: RuleBody } }, async (req) => createRule(ctx, serverAuth(req.auth).serverId, req.body.Rule));

  app.delete('/triggers/inboundrules/:id', { config: rulesConfig, schema: { ...rules, params: RuleIdParams } }, async (req) =>
    deleteRule(ctx, serverAuth(req.auth).serverId, ruleId(req.params.id)),
  );
}
