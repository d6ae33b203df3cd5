import { bootstrap } from './domain/accounts/bootstrap.js';
import type { Config, Role } from './config.js';
import { createContext } from './context.js';
import { migrateToLatest } from './infra/db/migrate.js';
import { buildApp } from './http/app.js';
import { startSubmissionListener, type SubmissionListener } from './smtp-listeners/submission-listener.js';
import { startWorker, type WorkerHandle } from './worker.js';
import { countUsers } from './domain/console-users/users.js';

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

/** `mailroom serve`: migrate, bootstrap, then run the API and/or the workers until a signal arrives. */
export async function serve(config: Config, role: Role): Promise<void> {
  const ctx = createContext(config);
  await migrateToLatest(ctx.database);
  const tokens = await bootstrap(ctx.database, config, ctx.clock.now());
  if (tokens) announceTokens(tokens);
  if (role !== 'worker' && (await countUsers(ctx.db)) === 0) {
    process.stdout.write(
      `mailroom: the web console is at ${config.publicUrl}/ ; no console user yet. Add one with:\n` +
        `  mailroom user add you@example.com --role admin    (prints a generated password once)\n\n`,
    );
  }

  const app = role === 'worker' ? null : await buildApp(ctx);
  let worker: WorkerHandle | null = null;
  if (role !== 'api') worker = await startWorker(ctx);
  // SMTP submission belongs to the role that answers HTTP: it is the API in another protocol.
  let submission: SubmissionListener | null = null;
  if (app && (config.submission.port !== null || config.submission.tlsPort !== null)) submission = await startSubmissionListener(ctx);
  if (app) {
    // The bound address, not the configured one: with MAILROOM_PORT=0 the system picks the port.
    const url = await app.listen({ host: config.host, port: config.port });
    ctx.logger.info({ role, url, db: ctx.dialect }, 'mailroom listening');
  } else {
    ctx.logger.info({ role, db: ctx.dialect }, 'mailroom worker started');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.logger.info({ signal }, 'shutting down: closing listener, draining work');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      if (submission) await submission.stop(); // stops accepting, waits for sessions to end
      if (app) await app.close(); // stops accepting, waits for requests in flight
      if (worker) await worker.stop(); // stops claiming, waits for jobs in flight
      await ctx.close();
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
