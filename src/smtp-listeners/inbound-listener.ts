// The inbound SMTP listener for bounces and complaints (worker role), on
// MAILROOM_INBOUND_SMTP_HOST:MAILROOM_INBOUND_SMTP_PORT. Recipients are checked at RCPT time
// (recipients.ts); DATA is answered 250 only once the report's effects are committed (intake.ts), and 451
// when that fails, so the sending MTA keeps the report and retries (RFC 5321 4.2.5, 6.1). With
// MAILROOM_INBOUND_TLS_CERT/_KEY it offers STARTTLS (RFC 3207), which production MTAs use when offered.
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../context.js';
import { takeInReport } from '../domain/inbound/intake.js';
import { checkRecipient, type InboundTarget } from '../domain/inbound/recipients.js';
import { inboundTlsOptions } from './tls-options.js';

/** A bounce with the original attached rarely exceeds a few hundred KB; 10 MB covers large originals. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
export const MAX_CLIENTS = 50;
export const MAX_RECIPIENTS = 50;
/** RFC 5321 4.5.3.2 suggests minutes; a bounce sender never needs long between commands. */
export const SOCKET_TIMEOUT_MS = 60_000;

export interface InboundListener {
  port: number;
  stop(): Promise<void>;
}

const ports = new WeakMap<AppContext, number>();

/** The port the listener of this context bound (useful when configured with port 0), or null. */
export function inboundSmtpPort(ctx: AppContext): number | null {
  return ports.get(ctx) ?? null;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

export async function startInboundListener(ctx: AppContext): Promise<InboundListener> {
  const log = ctx.logger.child({ component: 'inbound-smtp' });
  const targets = new WeakMap<SMTPServerSession, InboundTarget[]>();

  const server = new SMTPServer({
    name: ctx.config.returnPathDomain,
    banner: 'mailroom bounce intake',
    // Reports arrive from MTAs without authentication. STARTTLS is offered only with a configured
    // certificate (tls-options.ts): without one smtp-server would offer its built-in self-signed one.
    disabledCommands: ctx.config.inboundTls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...inboundTlsOptions(ctx.config.inboundTls),
    authOptional: true,
    disableReverseLookup: true,
    size: MAX_MESSAGE_BYTES,
    maxClients: MAX_CLIENTS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    closeTimeout: 5_000,
    logger: false,
    onRcptTo(address, session, cb) {
      const list = targets.get(session) ?? [];
      if (list.length >= MAX_RECIPIENTS) return cb(smtpError(452, '4.5.3 Too many recipients'));
      checkRecipient(ctx, address.address).then(
        (r) => {
          if (!r.ok) return cb(smtpError(r.code, r.message));
          list.push(r.target);
          targets.set(session, list);
          cb();
        },
        (err) => {
          log.error({ err }, 'recipient check failed');
          cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onMailFrom(_address, session, cb) {
      // A new transaction on the same connection starts with no recipients (RFC 5321 4.1.4).
      targets.delete(session);
      cb();
    },
    onData(stream: SMTPServerDataStream, session, cb) {
      const chunks: Buffer[] = [];
      // Past the limit the rest is read and dropped (the answer is 552 anyway), never buffered.
      stream.on('data', (c: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(c);
      });
      stream.on('error', (err) => {
        log.warn({ err }, 'data stream failed');
      });
      stream.on('end', () => {
        const list = targets.get(session) ?? [];
        targets.delete(session);
        if (stream.sizeExceeded) return cb(smtpError(552, `5.3.4 Message too big (limit ${MAX_MESSAGE_BYTES} bytes)`));
        const raw = Buffer.concat(chunks);
        takeInReport(ctx, raw, list).then(
          (outcomes) => {
            for (const o of outcomes) {
              log.info({ event: 'inbound', ...o, bytes: raw.length }, 'inbound report');
              ctx.metrics.inboundMessages.inc({ kind: o.outcome });
            }
            cb(null, '2.6.0 Report received');
          },
          (err) => {
            log.error({ err }, 'inbound report could not be recorded');
            cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
          },
        );
      });
    },
  });
  server.on('error', (err) => log.warn({ err }, 'inbound SMTP error'));

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(ctx.config.inboundSmtpPort, ctx.config.inboundSmtpHost, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : ctx.config.inboundSmtpPort;
  ports.set(ctx, port);
  log.info({ host: ctx.config.inboundSmtpHost, port }, 'inbound SMTP listener started');
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        ports.delete(ctx);
        server.close(() => resolve());
      }),
  };
}
