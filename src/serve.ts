import { bootstrap, ignoredBootstrapTokens } from './domain/accounts/bootstrap.js';
import { ConfigError, type Config, type Role } from './config.js';
import { type AppContext, createContext } from './context.js';
import { migrateToLatest } from './infra/db/migrate.js';
import { sealInboundHookPasswords } from './domain/servers/inbound-hook-secret.js';
import { buildApp } from './http/app.js';
import type { App } from './http/types.js';
import { startCaptureListener, type CaptureListener } from './smtp-listeners/capture-listener.js';
import { startSubmissionListener, type SubmissionListener } from './smtp-listeners/submission-listener.js';
import { startDevSmtpListener } from './smtp-listeners/dev-smtp-listener.js';
import { mailpitOpenServer } from './domain/mailpit/access.js';
import { SandboxServerRefused } from './domain/servers/sandbox-server.js';
import { startWorker, type WorkerHandle } from './worker.js';
import { countUsers } from './domain/console-users/users.js';
import { selfCommand } from './self-command.js';

/** Prints the bootstrap tokens once, to stdout and not through the logger (tokens are never logged). */
function announceTokens(t: { accountToken: string; serverToken: string }): void {
  const line = '='.repeat(72);
  process.stdout.write(
    `\n${line}\nmailroom: first start, created account and server "Default".\n` +
      `These tokens are shown once; only their hashes are stored.\n\n` +
      `  Account token (X-Service-Account-Token): ${t.accountToken}\n` +
      `  Server token  (X-Service-Server-Token):  ${t.serverToken}\n${line}\n\n`,
  );
}

/**
 * `mailroom serve`: the order matters for safe start and stop.
 *  1. Signal handlers first, so a SIGTERM at any moment stops the process (never ignored mid-start).
 *  2. Migrate and bootstrap, then bind every listener (HTTP, then the worker's SMTP listener) before any
 *     background work starts: a taken port stops the start before a job is claimed. A failure rejects; the CLI
 *     prints one line naming the setting (start-errors.ts) and exits non-zero.
 *  3. On SIGTERM/SIGINT, drain: stop taking work (HTTP listener, SMTP listener, job claims) and let what is in
 *     flight finish, within MAILROOM_SHUTDOWN_TIMEOUT_SECONDS; past it, hand claimed jobs back and exit 1.
 */
export async function serve(config: Config, role: Role): Promise<void> {
  let ctx: AppContext | null = null;
  let app: App | null = null;
  let worker: WorkerHandle | null = null;
  let submission: SubmissionListener | null = null;
  let devSmtp: SubmissionListener | null = null;
  let capture: CaptureListener | null = null;
  let stopping = false;

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx?.logger.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down: no new work, draining what is in flight');
    const force = setTimeout(() => {
      ctx?.logger.warn({ deadlineMs: config.shutdownTimeoutMs }, 'drain deadline passed: handing claimed jobs back and exiting');
      const release = ctx?.runner.releaseClaimed() ?? Promise.resolve(0);
      // The release gets two seconds of its own; the exit happens either way.
      setTimeout(() => process.exit(1), 2_000).unref();
      release.then(
        () => process.exit(1),
        () => process.exit(1),
      );
    }, config.shutdownTimeoutMs);
    force.unref();
    let code = 0;
    try {
      // Stop taking work everywhere at once, then let what is in flight finish: SMTP sessions end, HTTP
      // requests are answered, jobs settle.
      await Promise.all([submission?.stop(), devSmtp?.stop(), app?.close(), worker?.stop()]);
      await ctx?.close();
      // After the context, which closes the delivery connections pooled to the capture.
      await capture?.stop();
      ctx?.logger.info('stopped');
    } catch (err) {
      process.stderr.write(`mailroom: error while stopping: ${(err as Error).message}\n`);
      code = 1;
    } finally {
      clearTimeout(force);
      process.exit(code);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // MAILROOM_CAPTURE_DIR: the worker delivers to a local capture (README, "First send"), bound first so
  // that the relay setting the context is built with names its port.
  if (config.captureDir !== null && role !== 'api') {
    capture = await startCaptureListener(config.captureDir);
    config = { ...config, smtpRelay: capture.relay };
  }
  ctx = createContext(config, { processMetrics: true });
  capture?.useLogger(ctx.logger);
  if (capture) ctx.logger.info({ dir: config.captureDir }, 'delivering every message to the local capture, not to the internet');
  await migrateToLatest(ctx.database);
  // Passwords in InboundHookUrl written before migration 0027 are sealed here: a migration cannot seal.
  await sealInboundHookPasswords(ctx.db, ctx.secrets);
  const tokens = await bootstrap(ctx.database, config, ctx.clock.now());
  if (tokens) announceTokens(tokens);
  else {
    for (const variable of await ignoredBootstrapTokens(ctx.database, config)) {
      ctx.logger.warn(
        { variable },
        `${variable} is ignored: it is read only on the first start, against an empty database, and this database was set up earlier. ` +
          `Use a token printed then or issue one (${selfCommand()} token ${variable.includes('ACCOUNT') ? 'account' : 'server'}), or start on a new database`,
      );
    }
  }
  if (role !== 'worker' && (await countUsers(ctx.db)) === 0) {
    process.stdout.write(
      `mailroom: the web console is at ${config.publicUrl}/ ; no console user yet. Add one with:\n` +
        `  ${selfCommand()} user add you@example.com --role admin    (prints a generated password once)\n\n`,
    );
  }
  if (stopping) return;

  if (role !== 'worker') {
    app = await buildApp(ctx);
    // SMTP submission belongs to the role that answers HTTP (the API in another protocol); bound before any
    // background work starts, like HTTP.
    if (config.submission.port !== null || config.submission.tlsPort !== null) submission = await startSubmissionListener(ctx);
    // MAILROOM_DEV_SMTP_PORT: the credential-less listener; a server that is not Sandbox stops the start.
    // MAILROOM_MAILPIT_OPEN_SERVER: Mailpit's API without credentials; likewise only for a Sandbox server.
    try {
      if (config.mailpitOpenServer !== null) await mailpitOpenServer(ctx, config.mailpitOpenServer);
      if (config.devSmtp) devSmtp = await startDevSmtpListener(ctx);
    } catch (err) {
      if (err instanceof SandboxServerRefused) throw new ConfigError(err.variable, err.message);
      throw err;
    }
    await app.listen({ host: config.host, port: config.port });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    ctx.logger.info({ role, url: `${config.httpTls ? 'https' : 'http'}://${config.host}:${port}`, db: ctx.database.dialect }, 'mailroom listening');
  }
  if (stopping) return;
  // startWorker binds the inbound SMTP listener before it starts the job runner and the periodic tasks.
  if (role !== 'api') {
    worker = await startWorker(ctx);
    ctx.logger.info({ role, db: ctx.database.dialect, workerId: ctx.runner.workerId }, 'mailroom worker started');
  }
}
