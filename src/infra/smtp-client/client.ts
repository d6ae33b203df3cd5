// A lean SMTP client session (RFC 5321) for delivery: EHLO (HELO fallback), STARTTLS (RFC 3207) or implicit
// TLS, AUTH PLAIN/LOGIN (RFC 4954), and one transaction after another on the same connection. When the
// server offers PIPELINING (RFC 2920), MAIL, RCPT and DATA go out in one write, and the dot-stuffed message
// in a second, so a transaction costs two socket writes and one round trip wait plus the final reply.
// Why not nodemailer's SMTPConnection: it writes each command and each body chunk separately (5+ writes
// per message, each a syscall that on loopback also runs the receiver's network stack), streams the body
// through a Transform for dot-stuffing, and never pipelines. This client costs less CPU per message both in
// the service and in the receiving server (bench/deliver; figures in bench/README.md).
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext, type TLSSocket } from 'node:tls';
import { dotStuff } from './dot-stuff.js';
import { tlsInfoOf, type TlsInfo } from './tls-info.js';
import { ReplyReader, type SmtpReply } from './replies.js';

export type { TlsInfo } from './tls-info.js';

export interface SmtpClientOptions {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (smtps, port 465). */
  secure: boolean;
  /** Name sent in EHLO/HELO. */
  name: string;
  /** Local address to connect from (an IP pool's); unset: the OS chooses. */
  localAddress?: string;
  /**
   * servername: SNI and the name the certificate must carry. rejectUnauthorized: a certificate that does not
   * verify (chain or name) fails the connection; without it the result is only recorded in `tls`.
   * secureContext: the trusted roots (system CAs plus MAILROOM_TLS_CA_FILE), built once, not per connection.
   */
  tls: { servername: string; rejectUnauthorized: boolean; secureContext?: SecureContext };
  /** When the server refuses STARTTLS, carry on in plaintext (RFC 7435) instead of failing. */
  opportunisticTls: boolean;
  /** STARTTLS must happen (an MTA-STS policy in enforce mode, RFC 8461 5): a server that does not offer it fails. */
  requireTls?: boolean;
  auth?: { user: string; pass: string };
  connectTimeoutMs: number;
  /** Longest wait for one reply. */
  socketTimeoutMs: number;
}

export class SmtpError extends Error {
  constructor(
    message: string,
    /** The reply that refused the command, when there was one. */
    readonly reply?: SmtpReply,
    readonly command?: string,
    readonly code?: string,
  ) {
    super(message);
  }

  /** The refusing reply's text (as nodemailer names it). */
  get response(): string | undefined {
    return this.reply?.text;
  }

  get responseCode(): number | undefined {
    return this.reply?.code;
  }
}

const refused = (command: string, r: SmtpReply) => new SmtpError(`${command} refused: ${r.text}`, r, command);
const ok = (r: SmtpReply) => r.code >= 200 && r.code < 300;

function open(o: SmtpClientOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // A bound source address also fixes the family a host name is resolved in: a socket bound to an IPv4
    // address cannot reach an IPv6 peer.
    const bind = o.localAddress ? { localAddress: o.localAddress, family: isIP(o.localAddress) } : {};
    const socket = o.secure
      ? tlsConnect({ host: o.host, port: o.port, servername: o.tls.servername, rejectUnauthorized: o.tls.rejectUnauthorized, secureContext: o.tls.secureContext, ...bind })
      : netConnect({ host: o.host, port: o.port, ...bind });
    const timer = setTimeout(() => socket.destroy(new SmtpError(`connection to ${o.host}:${o.port} timed out`, undefined, 'CONN', 'ETIMEDOUT')), o.connectTimeoutMs);
    const onError = (e: Error) => {
      clearTimeout(timer);
      reject(e);
    };
    socket.once('error', onError);
    socket.once(o.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', onError);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

export class SmtpClient {
  /** True once the connection failed or was closed: the session must not be used again. */
  broken = false;
  /** The TLS layer (implicit TLS or after STARTTLS); null: the session is in plaintext. */
  tls: TlsInfo | null = null;
  /** EHLO keywords, upper case (PIPELINING, STARTTLS, SIZE, AUTH, ...); AUTH maps to its mechanisms. */
  private caps = new Map<string, string>();
  private reader = new ReplyReader();

  private constructor(
    private socket: Socket,
    private readonly o: SmtpClientOptions,
  ) {
    this.attach(socket);
  }

  static async connect(o: SmtpClientOptions): Promise<SmtpClient> {
    const c = new SmtpClient(await open(o), o);
    if (o.secure) c.tls = tlsInfoOf(c.socket as TLSSocket);
    try {
      const greeting = await c.reply(o.connectTimeoutMs);
      if (greeting.code !== 220) throw refused('greeting', greeting);
      await c.hello();
      if (!o.secure && c.caps.has('STARTTLS')) await c.startTls();
      else if (!o.secure && o.requireTls) throw new SmtpError('the server does not offer STARTTLS, and TLS is required', undefined, 'STARTTLS', 'ESTARTTLS');
      if (o.auth) await c.login(o.auth);
      return c;
    } catch (err) {
      c.close();
      throw err;
    }
  }

  get pipelining(): boolean {
    return this.caps.has('PIPELINING');
  }

  private attach(socket: Socket): void {
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new SmtpError('connection closed by the server', undefined, 'CONN', 'ECONNECTION')));
    socket.on('timeout', () => socket.destroy(new SmtpError('timed out waiting for the server', undefined, 'CONN', 'ETIMEDOUT')));
  }

  private fail(err: Error): void {
    this.broken = true;
    this.reader.fail(err);
  }

  private async reply(timeoutMs = this.o.socketTimeoutMs): Promise<SmtpReply> {
    this.socket.setTimeout(timeoutMs);
    const r = await this.reader.next();
    // A 421 means the server is closing the session (RFC 5321 3.8).
    if (r.code === 421) this.broken = true;
    return r;
  }

  private write(data: string | Buffer): void {
    this.socket.write(data);
  }

  private async command(line: string): Promise<SmtpReply> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  private async hello(): Promise<void> {
    let r = await this.command(`EHLO ${this.o.name}`);
    this.caps = new Map();
    if (!ok(r)) {
      // A server that does not know EHLO (RFC 5321 3.2): HELO, and no extensions.
      r = await this.command(`HELO ${this.o.name}`);
      if (!ok(r)) throw refused('HELO', r);
      return;
    }
    for (const line of r.text.split('\n').slice(1)) {
      const [kw, ...rest] = line.slice(4).trim().split(/\s+/);
      if (kw) this.caps.set(kw.toUpperCase(), rest.join(' ').toUpperCase());
    }
  }

  private async startTls(): Promise<void> {
    const r = await this.command('STARTTLS');
    if (r.code !== 220) {
      if (this.o.opportunisticTls && !this.o.requireTls) return;
      throw new SmtpError(`STARTTLS refused: ${r.text}`, r, 'STARTTLS', 'ESTARTTLS');
    }
    const plain = this.socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    plain.removeAllListeners('timeout');
    const secured = await new Promise<TLSSocket>((resolve, reject) => {
      const s = tlsConnect({ socket: plain, servername: this.o.tls.servername, rejectUnauthorized: this.o.tls.rejectUnauthorized, secureContext: this.o.tls.secureContext });
      s.once('secureConnect', () => resolve(s));
      s.once('error', reject);
    });
    this.socket = secured;
    this.tls = tlsInfoOf(secured);
    this.reader = new ReplyReader();
    this.attach(this.socket);
    await this.hello(); // RFC 3207 4.2: what was learnt before TLS is discarded
  }

  private async login(auth: { user: string; pass: string }): Promise<void> {
    const mechs = (this.caps.get('AUTH') ?? 'PLAIN').split(' ');
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    if (!mechs.includes('PLAIN') && mechs.includes('LOGIN')) {
      for (const [step, line] of [['AUTH LOGIN', 'AUTH LOGIN'], ['AUTH LOGIN (user)', b64(auth.user)]] as const) {
        const r = await this.command(line);
        if (r.code !== 334) throw refused(step, r);
      }
      const r = await this.command(b64(auth.pass));
      if (r.code !== 235) throw refused('AUTH LOGIN', r);
      return;
    }
    const r = await this.command(`AUTH PLAIN ${b64(`\0${auth.user}\0${auth.pass}`)}`);
    if (r.code !== 235) throw refused('AUTH PLAIN', r);
  }

  /** One transaction: MAIL FROM, RCPT TO, DATA. Resolves with the final reply; throws SmtpError on a refusal. */
  async send(from: string, to: string, raw: Buffer): Promise<SmtpReply> {
    const size = this.caps.has('SIZE') ? ` SIZE=${raw.length}` : '';
    const utf8 = this.caps.has('SMTPUTF8') && /[^\x00-\x7f]/.test(from + to) ? ' SMTPUTF8' : '';
    const mail = `MAIL FROM:<${from}>${size}${utf8}\r\n`;
    const rcpt = `RCPT TO:<${to}>\r\n`;
    let m: SmtpReply, r: SmtpReply, d: SmtpReply;
    if (this.pipelining) {
      this.write(mail + rcpt + 'DATA\r\n');
      [m, r, d] = [await this.reply(), await this.reply(), await this.reply()];
    } else {
      this.write(mail);
      if (!ok((m = await this.reply()))) throw refused('MAIL FROM', m);
      this.write(rcpt);
      if (!ok((r = await this.reply()))) throw refused('RCPT TO', r);
      this.write('DATA\r\n');
      d = await this.reply();
    }
    const failure = !ok(m) ? refused('MAIL FROM', m) : !ok(r) ? refused('RCPT TO', r) : null;
    if (failure) {
      // RFC 2920 3.1: a server that still answers DATA with 354 gets an empty message, which it must refuse.
      if (d.code === 354) {
        this.write('.\r\n');
        await this.reply();
      }
      throw failure;
    }
    if (d.code !== 354) throw refused('DATA', d);
    this.write(dotStuff(raw));
    const final = await this.reply();
    this.socket.setTimeout(0);
    if (!ok(final)) throw refused('DATA', final);
    return final;
  }

  /** RSET after a refused transaction, so the next one starts clean (RFC 5321 4.1.1.5). */
  async reset(): Promise<void> {
    if (this.broken) return;
    const r = await this.command('RSET').catch(() => null);
    this.socket.setTimeout(0);
    if (!r || !ok(r)) this.broken = true;
  }

  /** Says goodbye and closes; never waits for the answer. */
  quit(): void {
    if (!this.broken && this.socket.writable) this.socket.end('QUIT\r\n');
    this.broken = true;
  }

  close(): void {
    this.broken = true;
    this.socket.destroy();
  }
}
