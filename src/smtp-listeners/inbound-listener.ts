// The inbound SMTP listener for bounces and complaints, and for servers' inbound mail (worker role), on
// MAILROOM_INBOUND_SMTP_HOST:MAILROOM_INBOUND_SMTP_PORT. Recipients are checked at RCPT time
// (recipients.ts); DATA is answered 250 only once the report's effects are committed (intake.ts), and 451
// when that fails, so the sending MTA keeps the report and retries (RFC 5321 4.2.5, 6.1). With
// MAILROOM_INBOUND_TLS_CERT/_KEY it offers STARTTLS (RFC 3207), which production MTAs use when offered.
// Recipients that are a server's inbound address or at its InboundDomain (domain/inbound/inbound-address.ts)
// go to inbound processing (domain/inbound/receive.ts); a message may carry both kinds.
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../domain/app-context.js';
import { takeInReport } from '../domain/inbound/intake.js';
import { checkRecipient, type InboundTarget } from '../domain/inbound/recipients.js';
import { findInboundMailbox, type InboundMailbox } from '../domain/inbound/inbound-address.js';
import { InboundWriter, receiveInbound } from '../domain/inbound/receive.js';
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

/** The port the listener of this context bound (useful when configured with port 0), or null. */
export function inboundSmtpPort(ctx: AppContext): number | null {
  return ctx.ports.inboundSmtp;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

export async function startInboundListener(ctx: AppContext): Promise<InboundListener> {
  const log = ctx.logger.child({ component: 'inbound-smtp' });
  const targets = new WeakMap<SMTPServerSession, InboundTarget[]>();
  const mailboxes = new WeakMap<SMTPServerSession, InboundMailbox[]>();
  const writer = new InboundWriter(ctx);

  const server = new SMTPServer({
    name: ctx.config.returnPathDomain,
    banner: 'mailroom inbound',
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
      const boxes = mailboxes.get(session) ?? [];
      if (list.length + boxes.length >= MAX_RECIPIENTS) return cb(smtpError(452, '4.5.3 Too many recipients'));
      (async () => {
        const box = await findInboundMailbox(ctx, address.address);
        if (box) {
          boxes.push(box);
          mailboxes.set(session, boxes);
          return cb();
        }
        const r = await checkRecipient(ctx, address.address);
        if (!r.ok) return cb(smtpError(r.code, r.message));
        list.push(r.target);
        targets.set(session, list);
        cb();
      })().then(
        () => undefined,
        (err) => {
          log.error({ err }, 'recipient check failed');
          cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onMailFrom(_address, session, cb) {
      // A new transaction on the same connection starts with no recipients (RFC 5321 4.1.4).
      targets.delete(session);
      mailboxes.delete(session);
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
        const boxes = mailboxes.get(session) ?? [];
        targets.delete(session);
        mailboxes.delete(session);
        if (stream.sizeExceeded) return cb(smtpError(552, `5.3.4 Message too big (limit ${MAX_MESSAGE_BYTES} bytes)`));
        const raw = Buffer.concat(chunks);
        const envelope = {
          ip: session.remoteAddress,
          helo: session.hostNameAppearsAs ?? '',
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        };
        Promise.all([
          list.length ? takeInReport(ctx, raw, list) : [],
          boxes.length ? receiveInbound(ctx, writer, raw, envelope, boxes) : [],
        ]).then(
          ([outcomes, received]) => {
            for (const o of outcomes) {
              log.info({ event: 'inbound', ...o, bytes: raw.length }, 'inbound report');
              ctx.metrics.inboundMessages.inc({ kind: o.outcome });
            }
            for (const o of received) {
              log.info({ event: 'inbound', ...o, bytes: raw.length }, 'inbound message');
              ctx.metrics.inboundMessages.inc({ kind: `processing-${o.status.toLowerCase()}` });
            }
            cb(null, list.length ? '2.6.0 Report received' : `2.6.0 Message received${received[0] ? ` as ${received[0].inboundId}` : ''}`);
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
  ctx.ports.inboundSmtp = port;
  log.info({ host: ctx.config.inboundSmtpHost, port }, 'inbound SMTP listener started');
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        ctx.ports.inboundSmtp = null;
        server.close(() => resolve());
      }),
  };
}
