// Every API area registers its routes here. Each area lives in src/http/routes/<area>/routes.ts and stays thin:
// validate, call the domain module, shape the answer.
import type { AppContext } from '../../domain/app-context.js';
import type { App } from '../types.js';
import bounceRoutes from './bounces/routes.js';
import confirmRoutes from './confirm/routes.js';
import domainRoutes from './domains/routes.js';
import senderRoutes from './senders/routes.js';
import emailRoutes from './email/routes.js';
import messagesRoutes from './messages/routes.js';
import serverRoutes from './server/routes.js';
import trackingRoutes from './tracking/routes.js';
import streamRoutes from './streams/routes.js';
import suppressionRoutes from './suppressions/routes.js';
import unsubscribeRoutes from './unsubscribe/routes.js';
import webhookRoutes from './webhooks/routes.js';
import templateRoutes from './templates/routes.js';
import serversRoutes from './servers/routes.js';
import statsRoutes from './stats/routes.js';
import consoleRoutes from '../console/plugin.js';
import dataRemovalRoutes from './data-removals/routes.js';
import inboundRoutes from './inbound/routes.js';
import bulkRoutes from './bulk/routes.js';
import dmarcRoutes from './dmarc/routes.js';
import mailpitRoutes from './mailpit/routes.js';

export async function registerRoutes(app: App, ctx: AppContext): Promise<void> {
  await serverRoutes(app, ctx);
  await bounceRoutes(app, ctx);
  await confirmRoutes(app, ctx);
  await senderRoutes(app, ctx);
  await domainRoutes(app, ctx);
  await templateRoutes(app, ctx);
  await serversRoutes(app, ctx);
  await statsRoutes(app, ctx);
  await messagesRoutes(app, ctx);
  await trackingRoutes(app, ctx);
  await streamRoutes(app, ctx);
  await suppressionRoutes(app, ctx);
  await unsubscribeRoutes(app, ctx);
  await webhookRoutes(app, ctx);
  await emailRoutes(app, ctx);
  await consoleRoutes(app, ctx);
  await dataRemovalRoutes(app, ctx);
  await inboundRoutes(app, ctx);
  await bulkRoutes(app, ctx);
  await dmarcRoutes(app, ctx);
  await mailpitRoutes(app, ctx);
}
