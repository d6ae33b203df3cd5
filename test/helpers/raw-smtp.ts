// A raw SMTP client over a loopback socket, for dialogues no mail library would hold: idle connections,
// NOOP loops, repeated wrong AUTH, replies the server sends unasked before it closes.
import { connect, type Socket } from 'node:net';
import { withDeadline } from './wait.js';

export class RawSmtp {
  private buf = '';
  private wake: (() => void) | null = null;
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>;
  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buf += d;
      this.wake?.();
    });
    socket.on('error', () => this.wake?.());
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.wake?.());
  }

  /** Connects to `host` from `localAddress` (any of 127.0.0.0/8 on Linux; by default the system's choice for
   * `host`) and reads the greeting. */
  static async open(port: number, localAddress?: string, host = '127.0.0.1'): Promise<{ c: RawSmtp; greeting: string }> {
    const socket = connect({ port, host, ...(localAddress ? { localAddress } : {}) });
    const c = new RawSmtp(socket);
    return { c, greeting: await c.reply() };
  }

  /** The next whole reply (multi-line read whole), or '' when the connection closed first. */
  async reply(timeoutMs = 5000): Promise<string> {
    const read = async (): Promise<string> => {
      for (;;) {
        const m = /^(?:\d{3}-.*\r\n)*\d{3} .*\r\n/.exec(this.buf);
        if (m) {
          this.buf = this.buf.slice(m[0].length);
          return m[0].trimEnd();
        }
        if (this.socket.destroyed || this.socket.readableEnded) return '';
        await new Promise<void>((r) => (this.wake = r));
      }
    };
    return withDeadline(read(), timeoutMs, 'an SMTP reply');
  }

  async cmd(line: string, timeoutMs?: number): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply(timeoutMs);
  }

  /** Waits (bounded) for the server to close the connection. */
  async serverClosed(timeoutMs = 5000): Promise<void> {
    await withDeadline(this.closed, timeoutMs, 'the server to close the connection');
  }

  get isOpen(): boolean {
    return !this.socket.destroyed && !this.socket.readableEnded;
  }

  close(): void {
    this.socket.destroy();
  }
}

export const authPlain = (user: string, pass: string) => `AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString('base64')}`;

export interface DialogueOptions {
  host?: string;
  /** The client address the connection comes from (127.0.0.x: another client for per-client limits). */
  localAddress?: string;
  /** How long each reply may take: 30 s by default (a large message's DATA is parsed before its reply). */
  timeoutMs?: number;
}

/** The greeting, then each command sent after the previous reply and its reply ('' once the server closed). */
export async function smtpDialogue(port: number, commands: string[], o: DialogueOptions = {}): Promise<string[]> {
  const { c, greeting } = await RawSmtp.open(port, o.localAddress, o.host);
  try {
    const out = [greeting];
    for (const line of commands) out.push(await c.cmd(line, o.timeoutMs ?? 30_000));
    return out;
  } finally {
    c.close();
  }
}
