// The SMTP submission listener (RFC 6409) for applications that speak SMTP, run by the role that answers
// HTTP. MAILROOM_SUBMISSION_PORT takes plain connections (STARTTLS, RFC 3207, with a configured certificate)
// and MAILROOM_SUBMISSION_TLS_PORT implicit TLS (RFC 8314 3.3). AUTH PLAIN/LOGIN (RFC 4954) with a server
// token is required before MAIL. The message is accepted through the same path as POST /email
// (domain/submission/submit.ts) and 250 is answered only after its group commit is durable.
// The development listener (dev-smtp-listener.ts) is this listener with a fixed sender (`FixedSender`): no
// AUTH needed, every message into one Sandbox server, parsed and accepted by the same code.
import { isIP } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../domain/app-context.js';
import type { SendAuth } from '../domain/accepting/accept.js';
import { MAX_MESSAGE_BYTES, MAX_RECIPIENTS } from '../domain/accepting/limits.js';
import { ApiError } from '../domain/errors.js';
import { authorizeSubmission } from '../domain/submission/authorize.js';
import { SubmissionBusy, submitMessage } from '../domain/submission/submit.js';
import { TokenResolver } from '../domain/tokens/token-resolver.js';
import { AddressError, parseSingleMailbox } from '../infra/mime/address.js';
import { AuthGuard } from './auth-guard.js';
import { ClientSlots } from './client-slots.js';
import { refusalReply, TEMPORARY_FAILURE, type SmtpReply } from './submission-replies.js';
import { inboundTlsOptions } from './tls-options.js';

/**
 * SIZE (RFC 1870). The API's 10 MB rule counts attachments as base64 without line breaks; the same message
 * in MIME carries CRLF every 76 characters (RFC 2045 6.8, +2.6%) and its headers, so the SMTP limit leaves
 * 5% of room and the API's rule then decides on the parsed message (552 5.3.4 either way).
 */
export const MAX_SMTP_MESSAGE_BYTES = Math.ceil(MAX_MESSAGE_BYTES * 1.05);
export const MAX_CLIENTS = 500;
/** RFC 5321 4.5.3.2.7 suggests 5 minutes for a server waiting for the next command. */
export const SOCKET_TIMEOUT_MS = 300_000;

/** The credential-less mode: where the listener binds and who sends every message it takes. */
export interface FixedSender {
  host: string;
  port: number;
  /** Named in the banner. */
  label: string;
  /** The sender of the next message, or the reply refusing it (checked per message). */
  sender(): Promise<SendAuth | SmtpReply>;
}

export interface SubmissionListener {
  /** The plain/STARTTLS port, or null when off. */
  port: number | null;
  /** The implicit-TLS port, or null. */
  tlsPort: number | null;
  stop(): Promise<void>;
}

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
const reply = (r: SmtpReply) => Object.assign(new Error(r.message), { responseCode: r.code });

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.replace(/^::ffff:/i, '');
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
}

/**
 * Two per-connection adjustments of smtp-server's replies. A reply that carries its own enhanced code is sent
 * as is (smtp-server would derive one from the reply code). And EHLO does not advertise AUTH on a connection
 * where AUTH in clear text would be refused (RFC 4954 4: a client then does not send its credential before
 * STARTTLS); `mayAuth` says where AUTH is allowed.
 */
class SubmissionServer extends SMTPServer {
  constructor(
    options: SMTPServerOptions,
    private readonly mayAuth: (secure: boolean, remoteAddress: string | undefined) => boolean,
  ) {
    super(options);
  }

  override connect(...args: Parameters<SMTPServer['connect']>): void {
    super.connect(...args);
    let conn;
    for (const c of this.connections) conn = c; // the one just added (a Set keeps insertion order)
    if (!conn) return;
    const c = conn;
    const send = c.send.bind(c);
    c.send = (code, data, context) => {
      if (code === 250 && Array.isArray(data) && !this.mayAuth(c.secure, c.remoteAddress)) data = data.filter((l) => !/^AUTH /.test(l));
      send(code, data, typeof data === 'string' && ENHANCED.test(data) ? false : context);
    };
  }
}

export async function startSubmissionListener(ctx: AppContext, fixed: FixedSender | null = null): Promise<SubmissionListener> {
  const cfg = ctx.config.submission;
  const log = ctx.logger.child({ component: fixed ? 'dev-smtp' : 'submission-smtp' });
  const tokens = new TokenResolver(ctx.db);
  const auths = new WeakMap<SMTPServerSession, SendAuth>();
  const guard = new AuthGuard(ctx, cfg.maxAuthFailures);
  // Per-client connection limits, deadlines NOOP does not extend, and a short time to AUTH (client-slots.ts);
  // one set for both ports, so a client's connections to either count together.
  // The development listener expects no AUTH: no time limit to authenticate.
  const slots = new ClientSlots(fixed ? { ...cfg.slots, authMs: null } : cfg.slots, ctx.clock, log);
  const mayAuth = (secure: boolean, remoteAddress: string | undefined) => fixed !== null || secure || cfg.allowInsecureAuth || isLoopback(remoteAddress);
  const tls = fixed ? null : cfg.tls;
  /** The reply to a message whose data is in: the 250 text, or a refusal. */
  const decide = async (session: SMTPServerSession, raw: Uint8Array, rcptTo: string[]): Promise<string | SmtpReply> => {
    const auth = fixed ? await fixed.sender() : auths.get(session);
    // smtp-server refuses MAIL before AUTH (authOptional is false); this only guards the lookup.
    if (!auth) return { code: 530, message: '5.7.0 Authentication required' };
    if ('code' in auth) return auth;
    const o = await submitMessage(ctx, auth, raw, rcptTo);
    const r = o.result;
    if (r.ErrorCode === 0 && 'MessageID' in r) return `2.0.0 Ok: queued as ${r.MessageID}`;
    return refusalReply(r.ErrorCode, o.status, r.Message);
  };

  const options = (secure: boolean): SMTPServerOptions => ({
    name: ctx.config.returnPathDomain,
    banner: fixed ? `mailroom development SMTP (no AUTH; mail goes to the Sandbox server ${fixed.label})` : 'mailroom submission (AUTH with a server token)',
    secure,
    ...inboundTlsOptions(tls),
    // Without a certificate STARTTLS is not offered (smtp-server's built-in certificate has a public key).
    disabledCommands: tls ? [] : ['STARTTLS'],
    // The development listener takes mail without AUTH, as Mailpit's SMTP port does.
    authOptional: fixed !== null,
    authMethods: ['PLAIN', 'LOGIN'],
    // Checked per connection in onAuth (loopback is allowed in clear text); smtp-server's own check is global.
    allowInsecureAuth: true,
    disableReverseLookup: true,
    size: MAX_SMTP_MESSAGE_BYTES,
    maxClients: MAX_CLIENTS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    closeTimeout: 10_000,
    hideDSN: true, // DSN (RFC 3461) parameters would be ignored: not advertised
    hideENHANCEDSTATUSCODES: false, // RFC 2034: every reply carries its RFC 3463 code
    authRequiredMessage: 'Authentication required: AUTH PLAIN or LOGIN with a server token as user name and password',
    logger: false,
    onAuth(auth, session, cb) {
      // A client configured with credentials still works: any are accepted (Mailpit's --smtp-auth-accept-any).
      if (fixed) return cb(null, { user: fixed.label });
      if (!mayAuth(session.secure, session.remoteAddress)) {
        // RFC 4954 6: 538 5.7.11 encryption required for the requested authentication mechanism.
        return cb(reply({ code: 538, message: '5.7.11 Encryption required: use STARTTLS (or the implicit-TLS port) before AUTH' }));
      }
      // A client address over its failure limit is refused unchecked; failures close the connection (auth-guard.ts).
      guard.attempt(session, () => authorizeSubmission(ctx, tokens, auth.username ?? '', auth.password ?? '')).then(
        (out) => {
          if ('code' in out) return cb(reply(out));
          auths.set(session, out);
          cb(null, { user: out.serverId });
        },
        (err) => {
          log.error({ err }, 'token lookup failed');
          cb(reply({ code: 454, message: '4.7.0 Temporary authentication failure, try again later' }));
        },
      );
    },
    onRcptTo(address, session, cb) {
      // RFC 5321 4.5.3.1.10: too many recipients is 452, and the client sends the rest in another transaction.
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        return cb(reply({ code: 452, message: `4.5.3 Too many recipients: a message has at most ${MAX_RECIPIENTS} (To, Cc and Bcc together)` }));
      }
      try {
        parseSingleMailbox(address.address);
      } catch (err) {
        if (!(err instanceof AddressError)) throw err;
        // RFC 6531 3.7.4.1: 553 5.6.7 for an address this system cannot deliver to in UTF-8.
        if (/[^\x00-\x7f]/.test(address.address.slice(0, address.address.lastIndexOf('@')))) {
          return cb(reply({ code: 553, message: `5.6.7 Non-ASCII mailbox names are not supported: ${address.address}` }));
        }
        return cb(reply({ code: 553, message: `5.1.3 Invalid recipient address: ${err.message}` }));
      }
      cb();
    },
    onData(stream: SMTPServerDataStream, session, cb) {
      const chunks: Buffer[] = [];
      let size = 0;
      // Past the limit the rest is read and dropped (smtp-server answers 552 5.3.4), never buffered.
      stream.on('data', (c: Buffer) => {
        if (stream.sizeExceeded) return;
        chunks.push(c);
        size += c.length;
      });
      stream.on('error', (err) => log.warn({ err }, 'data stream failed'));
      stream.on('end', () => {
        if (stream.sizeExceeded) return cb(reply({ code: 552, message: `5.3.4 Message too big (limit ${MAX_SMTP_MESSAGE_BYTES} bytes)` }));
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        // The bytes go to a parser thread (transferred): a buffer of their own, not Buffer.concat's, which
        // may be a slice of Node's shared pool.
        const raw = new Uint8Array(size);
        let at = 0;
        for (const c of chunks.splice(0)) {
          raw.set(c, at);
          at += c.length;
        }
        decide(session, raw, rcptTo).then(
          (out) => (typeof out === 'string' ? cb(null, out) : cb(reply(out))),
          (err) => {
            // RFC 3463 4.3.2: not accepting messages now; the client keeps the message and retries.
            if (err instanceof SubmissionBusy) return cb(reply({ code: 451, message: '4.3.2 Too many messages being parsed; try again later' }));
            if (err instanceof ApiError) return cb(reply(refusalReply(err.errorCode, err.status ?? 422, err.message)));
            log.error({ err }, 'submitted message could not be stored');
            cb(reply(TEMPORARY_FAILURE));
          },
        );
      });
    },
  });

  const servers: SMTPServer[] = [];
  const listen = async (port: number, secure: boolean, host = cfg.host): Promise<number> => {
    const server = new SubmissionServer(slots.options(options(secure)), mayAuth);
    slots.attach(server);
    server.on('error', (err) => log.warn({ err }, 'submission SMTP error'));
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    const addr = server.server.address();
    return typeof addr === 'object' && addr ? addr.port : port;
  };
  try {
    if (fixed) {
      const port = await listen(fixed.port, false, fixed.host);
      log.info({ host: fixed.host, port, server: fixed.label }, 'development SMTP listener started: mail without AUTH goes to the Sandbox server');
      return { port, tlsPort: null, stop: () => closeAll(servers) };
    }
    const port = cfg.port === null ? null : await listen(cfg.port, false);
    const tlsPort = cfg.tlsPort === null ? null : await listen(cfg.tlsPort, true);
    log.info({ host: cfg.host, port, tlsPort }, 'submission SMTP listener started');
    return { port, tlsPort, stop: () => closeAll(servers) };
  } catch (err) {
    await closeAll(servers);
    throw err;
  }
}

async function closeAll(servers: SMTPServer[]): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
}
