// SMTP client sessions (nodemailer's SMTPConnection) kept open between jobs: a relay, or one MX address,
// serves many messages over one connection, one transaction after another (RFC 5321 3.3). Idle sessions
// are closed after a few seconds; a session that saw a network error or a 421 is never reused.
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { DeliveryOptions } from './options.js';
import type { SmtpTarget } from './targets.js';

export interface SmtpFailure extends Error {
  code?: string;
  /** The server's reply that refused the command, when there was one. */
  response?: string;
  responseCode?: number;
  command?: string;
}

export class SmtpSession {
  /** Messages sent over this session; a fresh session never hides a stale-connection error. */
  sent = 0;
  broken = false;
  /** Taken from the idle list: the server may have closed it meanwhile. */
  reused = false;
  constructor(
    readonly key: string,
    readonly target: SmtpTarget,
    readonly conn: SMTPConnection,
  ) {
    conn.on('error', () => {
      this.broken = true;
    });
    conn.on('end', () => {
      this.broken = true;
    });
  }

  /** One transaction: MAIL FROM, RCPT TO, DATA. Resolves with the server's final reply. */
  send(from: string, to: string, raw: Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      this.conn.send({ from, to: [to], size: raw.length }, raw, (err, info) => {
        if (err) {
          const e = err as SmtpFailure;
          // Without a reply code the connection itself failed (timeout, reset): not reusable. A 421 closes
          // the session on the server's side (RFC 5321 3.8).
          if (!e.responseCode || e.responseCode === 421) this.broken = true;
          return reject(e);
        }
        this.sent++;
        resolve(info!.response);
      });
    });
  }

  /** RSET after a refused transaction, so the next one starts clean (RFC 5321 4.1.1.5). */
  reset(): Promise<void> {
    return new Promise((resolve) => {
      if (this.broken) return resolve();
      this.conn.reset((err) => {
        if (err) this.broken = true;
        resolve();
      });
    });
  }
}

export class SmtpPool {
  private readonly idle = new Map<string, Array<{ s: SmtpSession; timer: NodeJS.Timeout }>>();
  private closed = false;

  constructor(
    private readonly o: DeliveryOptions,
    /** Idle sessions kept per target. */
    private readonly maxIdlePerTarget = 32,
  ) {}

  private keyOf(t: SmtpTarget): string {
    return `${t.secure ? 'smtps' : 'smtp'}://${t.auth?.user ?? ''}@${t.host}:${t.port}/${t.serverName}`;
  }

  async acquire(t: SmtpTarget, fresh = false): Promise<SmtpSession> {
    const key = this.keyOf(t);
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
    return this.connect(key, t);
  }

  private connect(key: string, t: SmtpTarget): Promise<SmtpSession> {
    return new Promise((resolve, reject) => {
      const conn = new SMTPConnection({
        host: t.host,
        port: t.port,
        secure: t.secure,
        servername: t.serverName,
        name: this.o.ehloName,
        // Opportunistic STARTTLS (RFC 3207): upgrade when offered, carry on in plaintext when the upgrade
        // fails on an MX; a relay with credentials gets TLS verified.
        opportunisticTLS: !t.relay,
        tls: { rejectUnauthorized: t.verifyTls, servername: t.serverName },
        connectionTimeout: this.o.connectTimeoutMs,
        greetingTimeout: this.o.connectTimeoutMs,
        socketTimeout: this.o.socketTimeoutMs,
        socketCloseTimeout: 0,
        logger: false,
      });
      const session = new SmtpSession(key, t, conn);
      let done = false;
      const fail = (err: unknown) => {
        if (done) return;
        done = true;
        conn.close();
        reject(err);
      };
      conn.once('error', fail);
      conn.connect((err) => {
        if (err) return fail(err);
        if (!t.auth) {
          done = true;
          return resolve(session);
        }
        conn.login({ user: t.auth.user, pass: t.auth.pass }, (lerr) => {
          if (lerr) return fail(lerr);
          done = true;
          resolve(session);
        });
      });
    });
  }

  /** Returns a session for reuse, or closes it when it is broken, the pool is closing, or enough are idle. */
  release(s: SmtpSession): void {
    const list = this.idle.get(s.key) ?? [];
    if (s.broken || this.closed || list.length >= this.maxIdlePerTarget) {
      if (!s.broken) s.conn.quit();
      s.conn.close();
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
