// Connection slots of an SMTP listener under abuse. smtp-server's own limits are a global maxClients and an
// idle timeout that any byte resets, so one address holding every slot (idle, or sending NOOP now and then)
// would make the listener answer 421 to everyone else. Here a client address (IPv6: its /64, which one
// customer usually holds whole) gets at most `maxPerClient` connections; a connection is closed when it has
// made no progress (an accepted AUTH, MAIL, RCPT or DATA: NOOP, RSET, HELP, EHLO do not count) for
// `idleMs`, `sessionMs` after it opened, and on submission when it has not authenticated within `authMs`.
// Each refusal is 421 4.7.0 with the reason (RFC 5321 3.8: the server may close with 421 at any time;
// RFC 3463 X.7.0: a policy reason). The decision on a message whose data is in is never cut off: the client
// would retry a message that may have been accepted.
import { isIPv4, isIPv6 } from 'node:net';
import type { SMTPServer, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { SmtpSlotLimits } from '../infra/config-types.js';
import type { Clock } from '../infra/clock.js';
import type { Logger } from '../infra/logger.js';

/** How often open connections are checked against their deadlines; a deadline is kept to within this. */
const SWEEP_MS = 1000;

interface Slot {
  client: string;
  openedAt: number;
  progressAt: number;
  authenticated: boolean;
  /** From DATA until the reply to it: no idle limit while the message streams in. */
  inData: boolean;
  /** The message is in and its reply not yet sent: nothing cuts the connection. */
  deciding: boolean;
}

type Done = (err?: Error | null) => void;

/** The address a limit counts: IPv4 as is, IPv6 by its /64 (RFC 4291 2.5.4: the interface identifier is
 * chosen by the host, so one machine can take any number of addresses of its /64). */
export function clientKey(address: string | undefined): string {
  const a = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  if (isIPv4(a) || !isIPv6(a)) return a || 'unknown';
  const [head, tail = ''] = a.split('::');
  const part = (s: string) => (s ? s.split(':') : []);
  const h = part(head);
  const t = part(tail);
  // An embedded IPv4 tail takes two groups; it is in the interface identifier either way.
  const tLen = t.length + (t.length && t[t.length - 1].includes('.') ? 1 : 0);
  const groups = a.includes('::') ? [...h, ...Array<string>(Math.max(0, 8 - h.length - tLen)).fill('0'), ...t] : h;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} seconds`;
const refusal = (text: string) => Object.assign(new Error(`4.7.0 ${text}`), { responseCode: 421 });

export class ClientSlots {
  private readonly slots = new Map<SMTPServerSession, Slot>();
  private readonly perClient = new Map<string, number>();
  private readonly servers = new Set<SMTPServer>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly limits: SmtpSlotLimits,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** `options` with the hooks that count slots and progress around the listener's own. */
  options(options: SMTPServerOptions): SMTPServerOptions {
    const o = { ...options };
    const progress = (session: SMTPServerSession, cb: Done) => (err?: Error | null) => {
      if (!err) this.progress(session);
      cb(err);
    };
    o.onConnect = (session, cb) => {
      const refused = this.admit(session);
      if (refused) return cb(refused);
      if (options.onConnect) options.onConnect(session, cb);
      else cb();
    };
    o.onClose = (session, cb) => {
      this.release(session);
      options.onClose?.(session, cb);
    };
    if (options.onAuth) {
      const inner = options.onAuth;
      o.onAuth = (auth, session, cb) =>
        inner(auth, session, (err, response) => {
          const slot = this.slots.get(session);
          if (!err && response?.user !== undefined && slot) {
            slot.authenticated = true;
            slot.progressAt = this.clock.now();
          }
          cb(err, response);
        });
    }
    const { onMailFrom, onRcptTo, onData } = options;
    o.onMailFrom = (address, session, cb) => (onMailFrom ? onMailFrom(address, session, progress(session, cb)) : progress(session, cb)());
    o.onRcptTo = (address, session, cb) => (onRcptTo ? onRcptTo(address, session, progress(session, cb)) : progress(session, cb)());
    if (onData) {
      o.onData = (stream, session, cb) => {
        const slot = this.slots.get(session);
        if (slot) slot.inData = true;
        stream.once('end', () => {
          if (slot) slot.deciding = true;
        });
        onData(stream, session, (err, message) => {
          if (slot) {
            slot.inData = slot.deciding = false;
            if (!err) slot.progressAt = this.clock.now();
          }
          cb(err, message);
        });
      };
    }
    return o;
  }

  /** Checks the connections of `server` against their deadlines until it closes. */
  attach(server: SMTPServer): void {
    this.servers.add(server);
    server.server.once('close', () => {
      this.servers.delete(server);
      if (this.servers.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    });
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), SWEEP_MS);
      this.timer.unref();
    }
  }

  private admit(session: SMTPServerSession): Error | null {
    const client = clientKey(session.remoteAddress);
    const open = this.perClient.get(client) ?? 0;
    if (open >= this.limits.maxPerClient) {
      this.log.info({ event: 'smtp-slot', client, reason: 'per-client' }, 'connection refused: too many from one client');
      return refusal(`Too many connections from your address (at most ${this.limits.maxPerClient} at once); close one and try again later`);
    }
    const now = this.clock.now();
    this.perClient.set(client, open + 1);
    this.slots.set(session, { client, openedAt: now, progressAt: now, authenticated: false, inData: false, deciding: false });
    return null;
  }

  private release(session: SMTPServerSession): void {
    const slot = this.slots.get(session);
    if (!slot) return;
    this.slots.delete(session);
    const open = (this.perClient.get(slot.client) ?? 1) - 1;
    if (open > 0) this.perClient.set(slot.client, open);
    else this.perClient.delete(slot.client);
  }

  private progress(session: SMTPServerSession): void {
    const slot = this.slots.get(session);
    if (slot) slot.progressAt = this.clock.now();
  }

  /** Why `slot` must close now, or null. */
  private expired(slot: Slot, now: number): string | null {
    const l = this.limits;
    if (slot.deciding) return null;
    if (now - slot.openedAt >= l.sessionMs) return `Session limit of ${seconds(l.sessionMs)} reached; closing, reconnect to go on`;
    if (slot.inData) return null;
    if (l.authMs !== null && !slot.authenticated && now - slot.openedAt >= l.authMs) return `Not authenticated within ${seconds(l.authMs)}; closing`;
    if (now - slot.progressAt >= l.idleMs) return `No progress for ${seconds(l.idleMs)} (NOOP, RSET and HELP do not count); closing`;
    return null;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const server of this.servers) {
      for (const conn of server.connections) {
        const slot = this.slots.get(conn.session);
        const why = slot && this.expired(slot, now);
        if (!why) continue;
        this.log.info({ event: 'smtp-slot', client: slot.client, reason: why }, 'connection closed by a limit');
        // 421 closes the connection (smtp-server), which frees the slot through onClose.
        conn.send(421, `4.7.0 ${why}`, false);
      }
    }
  }
}
