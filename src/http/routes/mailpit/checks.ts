// Mailpit's message checks under the Mailpit API prefix (/mailpit): GET /api/v1/message/{ID}/html-check,
// /link-check (?follow=true|1) and /sa-check (and mailroom's /deliverability-check), answering Mailpit's shapes and statuses (server/apiv1/other.go):
// 200 with the JSON, 400 text/plain for a message without HTML or without a SpamAssassin service, 404
// "404 page not found" for an unknown id. `ID` may be `latest`. The server whose messages are read comes
// from the Mailpit plugin's authentication (deps.serverFor).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { runHtmlCheck } from '../../../domain/message-checks/html-check-run.js';
import { createLinkChecker } from '../../../domain/message-checks/link-check.js';
import { checkedMessage, type MessageScope } from '../../../domain/message-checks/message-source.js';
import { spamCheck, SpamNotConfigured } from '../../../domain/message-checks/spam-check.js';
import { deliverabilityCheck } from '../../../domain/message-checks/deliverability-check.js';

export interface MailpitCheckDeps {
  ctx: AppContext;
  /**
   * The server the request's credentials select (`sandbox`: a Sandbox server, whose Mailpit API shows only its
   * Sandbox messages); null when the plugin has not authenticated the request (401 then).
   */
  serverFor(request: FastifyRequest): Promise<{ id: number; sandbox?: boolean } | null>;
}

const text = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).header('content-type', 'text/plain; charset=utf-8').header('referrer-policy', 'no-referrer').send(body);

/** Runs a check, answering Mailpit's 404 and 400 for the usual failures; other errors go to the app's handler. */
async function answer(request: FastifyRequest, reply: FastifyReply, deps: MailpitCheckDeps, run: (scope: MessageScope, id: string) => Promise<unknown>) {
  const server = await deps.serverFor(request);
  if (!server) return text(reply.header('www-authenticate', 'Basic realm="mailroom Mailpit API"'), 401, 'Unauthorised.');
  const { id } = request.params as { id: string };
  try {
    const body = await run({ serverId: server.id, sandboxOnly: server.sandbox === true }, id);
    return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(body));
  } catch (err) {
    if (err instanceof ApiError && err.errorCode === ErrorCode.MessageNotFound) return text(reply, 404, '404 page not found');
    if (err instanceof SpamNotConfigured || err instanceof NoHtml) return text(reply, 400, err.message);
    throw err;
  }
}

class NoHtml extends Error {
  constructor() {
    super('message does not contain HTML');
  }
}

export function registerMailpitCheckRoutes(app: FastifyInstance, deps: MailpitCheckDeps): void {
  const { ctx } = deps;
  const linkChecker = createLinkChecker(ctx);
  app.addHook('onClose', async () => linkChecker.close());
  const hide = { schema: { hide: true } };

  app.get('/api/v1/message/:id/html-check', hide, (request, reply) =>
    answer(request, reply, deps, async (scope, id) => {
      const m = await checkedMessage(ctx, scope, id);
      if (!m.html) throw new NoHtml();
      return runHtmlCheck(ctx.threads, m.html);
    }),
  );

  app.get('/api/v1/message/:id/link-check', hide, (request, reply) =>
    answer(request, reply, deps, async (scope, id) => {
      const m = await checkedMessage(ctx, scope, id);
      const follow = String((request.query as Record<string, unknown>).follow ?? '');
      return linkChecker.check(m.html, m.text, follow === 'true' || follow === '1');
    }),
  );

  app.get('/api/v1/message/:id/sa-check', hide, (request, reply) => answer(request, reply, deps, (scope, id) => spamCheck(ctx, scope, id)));
  // mailroom's own, beside Mailpit's: DKIM against the published key, alignment, header lengths, tracking.
  app.get('/api/v1/message/:id/deliverability-check', hide, (request, reply) => answer(request, reply, deps, (scope, id) => deliverabilityCheck(ctx, scope, id)));
}
