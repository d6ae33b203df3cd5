// SMTP client sessions (smtp/client.ts) kept open between jobs: a relay, or one MX address, serves many
// messages over one connection, one transaction after another (RFC 5321 3.3). Idle sessions are closed
// after a few seconds; a session that saw a network error or a 421 is never reused. Sessions are kept per
// IP pool too (ip-pools/): a connection bound to one pool's address never carries another pool's mail.
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { SmtpClient } from '../../infra/smtp-client/client.js';
import type { SmtpReply } from '../../infra/smtp-client/replies.js';
import type { IpPool } from './ip-pools/parse.js';
import { SourceRotation } from './ip-pools/rotation.js';
import { StsFetchFailures } from './mta-sts/fetch-failures.js';
import type { DeliveryOptions } from './options.js';
import type { SmtpTarget } from './smtp-target.js';

export interface SmtpFailure extends Error {
  code?: string;
  /** The server's reply that refused the command, when there was one. */
  reply?: SmtpReply;
  command?: string;
}

export class SmtpSession {
  /** Messages sent over this session; a fresh session never hides a stale-connection error. */
  sent = 0;
  /** Taken from the idle list: the server may have closed it meanwhile. */
  reused = false;
  constructor(
    readonly key: string,
    readonly target: SmtpTarget,
    readonly conn: SmtpClient,
    /** The IP pool address this session is bound to; null: the OS chose. */
    readonly localAddress: string | null = null,
  ) {}

  get broken(): boolean {
    return this.conn.broken;
  }

  /** One transaction: MAIL FROM, RCPT TO, DATA. Resolves with the server's final reply. */
  async send(from: string, to: string, raw: Buffer): Promise<SmtpReply> {
    const reply = await this.conn.send(from, to, raw);
    this.sent++;
    return reply;
  }

  /** RSET after a refused transaction, so the next one starts clean (RFC 5321 4.1.1.5). */
  reset(): Promise<void> {
    return this.conn.reset();
  }
}

export class SmtpPool {
  private readonly idle = new Map<string, Array<{ s: SmtpSession; timer: NodeJS.Timeout }>>();
  private closed = false;
  private readonly sources = new SourceRotation();
  /** MTA-STS policy fetches that failed lately (per process, like the sessions). */
  readonly stsFetchFailures = new StsFetchFailures();
  /** Trusted roots for verification: built once (parsing the bundled roots per connection costs milliseconds). */
  private secureContext: SecureContext | undefined;

  constructor(
    private readonly o: DeliveryOptions,
    /** Idle sessions kept per target. */
    private readonly maxIdlePerTarget = 32,
  ) {}

  private keyOf(t: SmtpTarget, source: IpPool | null): string {
    const from = source ? ` from pool ${source.name}` : '';
    // A session opened without the TLS requirement is never handed to mail that needs it (MTA-STS enforce).
    return `${t.secure ? 'smtps' : 'smtp'}://${t.auth?.user ?? ''}@${t.host}:${t.port}/${t.serverName}${from}${t.requireTls ? '#tls' : ''}`;
  }

  /** A session to `t`, leaving from one of `source`'s addresses (null: the OS's choice of address). */
  async acquire(t: SmtpTarget, fresh = false, source: IpPool | null = null): Promise<SmtpSession> {
    const key = this.keyOf(t, source);
    const list = this.idle.get(key);
    while (!fresh && list && list.length > 0) {
      const { s, timer } = list.pop()!;
      clearTimeout(timer);
      if (!s.broken) {
        s.reused = true;
        return s;
      }
      s.conn.close();
    }
    return this.connect(key, t, source);
  }

  private async connect(key: string, t: SmtpTarget, source: IpPool | null): Promise<SmtpSession> {
    const localAddress = source ? this.sources.next(source, t.host) : undefined;
    const conn = await SmtpClient.connect({
      host: t.host,
      port: t.port,
      secure: t.secure,
      // The pool's own name: receivers check it against the PTR record of the address we connect from.
      name: source?.ehlo ?? this.o.ehloName,
      localAddress,
      // Opportunistic STARTTLS (RFC 3207): upgrade when offered, carry on in plaintext when an MX refuses the
      // upgrade; a relay gets TLS verified.
      opportunisticTls: !t.relay,
      requireTls: t.requireTls,
      tls: { rejectUnauthorized: t.verifyTls, servername: t.serverName, secureContext: this.tlsContext() },
      auth: t.auth,
      connectTimeoutMs: this.o.connectTimeoutMs,
      socketTimeoutMs: this.o.socketTimeoutMs,
    });
    return new SmtpSession(key, t, conn, localAddress ?? null);
  }

  private tlsContext(): SecureContext | undefined {
    if (!this.o.tlsCa) return undefined;
    return (this.secureContext ??= createSecureContext({ ca: [...rootCertificates, this.o.tlsCa] }));
  }

  /** Returns a session for reuse, or closes it when it is broken, the pool is closing, or enough are idle. */
  release(s: SmtpSession): void {
    const list = this.idle.get(s.key) ?? [];
    if (s.broken || this.closed || list.length >= this.maxIdlePerTarget) {
      s.conn.quit();
      return;
    }
    const timer = setTimeout(() => {
      const i = list.findIndex((x) => x.s === s);
      if (i >= 0) list.splice(i, 1);
      s.conn.quit();
    }, this.o.idleMs);
    timer.unref();
    list.push({ s, timer });
    this.idle.set(s.key, list);
  }

  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) {
      for (const { s, timer } of list) {
        clearTimeout(timer);
        s.conn.quit();
        s.conn.close();
      }
    }
    this.idle.clear();
  }
}

// A part of the process's context, declared by this area (domain/app-context.ts says why).
declare module '../app-context.js' {
  interface AppContext {
    /** Pooled SMTP sessions, shared by the delivery worker and system mail. */
    smtpPool: SmtpPool;
  }
}
