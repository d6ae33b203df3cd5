// The inbound SMTP listener for bounces and complaints, and for servers' inbound mail (worker role), on
// MAILROOM_INBOUND_SMTP_HOST:MAILROOM_INBOUND_SMTP_PORT. Recipients are checked at RCPT time
// (recipients.ts); DATA is answered 250 only once the report's effects are committed (intake.ts), and 451
// when that fails, so the sending MTA keeps the report and retries (RFC 5321 4.2.5, 6.1). With
// MAILROOM_INBOUND_TLS_CERT/_KEY it offers STARTTLS (RFC 3207), which production MTAs use when offered.
// Recipients that are a server's inbound address or at its InboundDomain (domain/inbound/inbound-address.ts)
// go to inbound processing (domain/inbound/receive.ts), postmaster to the operator (postmaster.ts); a message
// may carry every kind (take-in.ts); DMARC aggregate reports at the report address (domain/dmarc/
// report-address.ts) go to domain/dmarc/store.ts. A message that cannot be parsed is refused for good (554 5.6.0).
import { pipeline } from 'node:stream/promises';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../domain/app-context.js';
import { UnreadableMessage } from '../domain/inbound/parse.js';
import { isPostmaster } from '../domain/inbound/postmaster.js';
import { checkRecipient, isReturnPathDomain } from '../domain/inbound/recipients.js';
import { count, noRcpts, takeIn, type Rcpts } from '../domain/inbound/take-in.js';
import { matchReportAddress } from '../domain/dmarc/report-address.js';
import { ByteBudget } from '../infra/byte-budget.js';
import { SpoolDir } from '../infra/spool.js';
import { findInboundMailbox } from '../domain/inbound/inbound-address.js';
import { createInboundWriter } from '../domain/inbound/receive.js';
import { ParsersBusy } from '../domain/parsers-busy.js';
import { ClientSlots } from './client-slots.js';
import { inboundTlsOptions } from './tls-options.js';

/** The default of MAILROOM_INBOUND_MAX_MESSAGE_BYTES: a bounce with the original attached rarely exceeds a
 * few hundred KB; 10 MiB covers large originals and ordinary inbound mail. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** A message up to this size is kept in memory while it arrives; a larger one goes to a temporary file. */
export const SPOOL_MEMORY_BYTES = 256 * 1024;
/** Messages of the full SIZE held whole in this process at once (reports, postmaster mail, read into memory
 * and then copied to a parser thread): a few times a message's bytes each. Servers' inbound mail is streamed
 * to a parser thread (infra/threads) instead. */
export const PARSE_BUDGET_MESSAGES = 2;
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
  const rcpts = new WeakMap<SMTPServerSession, Rcpts>();
  const writer = createInboundWriter(ctx);
  const maxBytes = ctx.config.inboundMaxMessageBytes;
  const spoolDir = await SpoolDir.create('mailroom-inbound');
  const budget = new ByteBudget(PARSE_BUDGET_MESSAGES * maxBytes);
  const ownDomain = async (d: string) => d === ctx.config.inboundDomain || d === ctx.config.dmarc.report.domain || isReturnPathDomain(ctx, d);
  // Per-client connection limits and deadlines that NOOP does not extend (client-slots.ts).
  const slots = new ClientSlots(ctx.config.inboundSlots, ctx.clock, log);

  const server = new SMTPServer(slots.options({
    name: ctx.config.returnPathDomain,
    banner: 'mailroom inbound',
    // Reports arrive from MTAs without authentication. STARTTLS is offered only with a configured
    // certificate (tls-options.ts): without one smtp-server would offer its built-in self-signed one.
    disabledCommands: ctx.config.inboundTls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...inboundTlsOptions(ctx.config.inboundTls),
    authOptional: true,
    disableReverseLookup: true,
    // Advertised as SIZE (RFC 1870): a client announcing more is refused at MAIL FROM, one sending more is
    // refused after DATA with 552 5.3.4 (the bytes past the limit are read and dropped, never kept).
    size: maxBytes,
    maxClients: MAX_CLIENTS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    closeTimeout: 5_000,
    logger: false,
    onRcptTo(address, session, cb) {
      const r = rcpts.get(session) ?? noRcpts();
      rcpts.set(session, r);
      if (count(r) >= MAX_RECIPIENTS) return cb(smtpError(452, '4.5.3 Too many recipients'));
      (async () => {
        // DMARC aggregate reports (domain/dmarc/report-address.ts): the report address and its signed sub-addresses.
        const dmarc = matchReportAddress(ctx, address.address);
        if (dmarc) {
          r.dmarc.push(dmarc);
          return cb();
        }
        if (await isPostmaster(address.address, ownDomain)) {
          r.postmaster.push(address.address);
          return cb();
        }
        const box = await findInboundMailbox(ctx, address.address);
        if (box) {
          r.boxes.push(box);
          return cb();
        }
        const c = await checkRecipient(ctx, address.address);
        if (!c.ok) return cb(smtpError(c.code, c.message));
        r.reports.push(c.target);
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
      rcpts.delete(session);
      cb();
    },
    onData(stream: SMTPServerDataStream, session, cb) {
      const r = rcpts.get(session) ?? noRcpts();
      rcpts.delete(session);
      // The DATA goes to a spool (memory up to SPOOL_MEMORY_BYTES, a temporary file beyond), never to a
      // buffer per recipient; it is read back whole only to be parsed, within the parse budget.
      const spool = spoolDir.spool(maxBytes, SPOOL_MEMORY_BYTES);
      const envelope = {
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs ?? '',
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      };
      (async () => {
        try {
          await pipeline(stream, spool);
        } catch (err) {
          log.warn({ err }, 'data stream failed');
          return cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
        }
        if (stream.sizeExceeded || spool.oversized) {
          return cb(smtpError(552, `5.3.4 Message too big: ${spool.bytes} bytes, the limit is ${maxBytes} bytes (SIZE ${maxBytes})`));
        }
        let reply: string;
        try {
          // Every kind is parsed on a parser thread (bounded by MAILROOM_PARSE_QUEUE); reports and postmaster
          // mail are also read into this process whole, within the parse budget.
          const onThisThread = r.reports.length > 0 || r.postmaster.length > 0;
          reply = onThisThread ? await budget.run(spool.bytes, () => takeIn(ctx, log, writer, spool, envelope, r)) : await takeIn(ctx, log, writer, spool, envelope, r);
        } catch (err) {
          if (err instanceof ParsersBusy) {
            // RFC 3463 4.3.2: the system is not accepting messages now; the sender retries later.
            log.warn({ event: 'inbound', outcome: 'busy', bytes: spool.bytes, ip: envelope.ip }, 'inbound message deferred: parser threads busy');
            ctx.metrics.inboundMessages.inc({ kind: 'busy' });
            return cb(smtpError(451, `4.3.2 Too many messages being parsed; try again later`));
          }
          if (err instanceof UnreadableMessage) {
            log.warn({ event: 'inbound', outcome: 'unreadable', reason: err.message, bytes: spool.bytes, ip: envelope.ip }, 'inbound message refused');
            ctx.metrics.inboundMessages.inc({ kind: 'unreadable' });
            return cb(smtpError(554, `5.6.0 ${err.message}`));
          }
          log.error({ err }, 'inbound report could not be recorded');
          return cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
        }
        cb(null, reply);
      })()
        // Every expected failure answers the client above; anything else is a bug to see in the log.
        .catch((err: unknown) => log.error({ err }, 'inbound message handling failed'))
        .finally(() => void spool.discard());
    },
  }));
  slots.attach(server);
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
        server.close(() => {
          // The stop goes on whatever fails here, but never silently: the final drain and sync concern messages
          // whose senders are being answered, and an operator must see that the last of them may not be on disk.
          const closing = writer.close().catch((err: unknown) => log.error({ err }, 'inbound SMTP stop: the last messages could not be stored'));
          const removing = spoolDir.remove().catch((err: unknown) => log.error({ err }, 'inbound SMTP stop: the spool directory could not be removed'));
          void Promise.all([closing, removing]).then(() => resolve());
        });
      }),
  };
}

