// The development SMTP listener (MAILROOM_DEV_SMTP_PORT): mail without AUTH, into the one Sandbox server
// MAILROOM_DEV_SMTP_SERVER names, as Mailpit's SMTP port takes it, so an application configured for Mailpit
// sends to mailroom unchanged. It is the submission listener with a fixed sender (same parsing, same accept
// path, the same per-client slots); loopback unless MAILROOM_DEV_SMTP_ALLOW_REMOTE (config.ts), and it refuses
// to start for a Live server (domain/submission/dev-server.ts). Nothing it takes is delivered, except the fake
// bounces of the bounce-testing domain (domain/delivery/bounce-testing.ts).
import type { AppContext } from '../domain/app-context.js';
import { devServerSender, isStillSandbox } from '../domain/submission/dev-server.js';
import { startSubmissionListener, type SubmissionListener } from './submission-listener.js';

/** Throws DevServerRefused (naming the variable) when the named server is not a Sandbox server. */
export async function startDevSmtpListener(ctx: AppContext): Promise<SubmissionListener> {
  const dev = ctx.config.devSmtp;
  if (!dev) throw new Error('MAILROOM_DEV_SMTP_PORT is not set');
  const auth = await devServerSender(ctx.db, dev.server);
  return startSubmissionListener(ctx, {
    host: dev.host,
    port: dev.port,
    label: JSON.stringify(dev.server),
    async sender() {
      if (await isStillSandbox(ctx.db, auth.serverId)) return auth;
      return { code: 550, message: `5.7.1 The server ${JSON.stringify(dev.server)} is gone or no longer a Sandbox server; this listener takes mail only into a Sandbox server` };
    },
  });
}
