// Connection slots of an SMTP listener under abuse. smtp-server's own limits are a global maxClients and an
// idle timeout that any byte resets, so one address holding every slot (idle, or sending NOOP now and then)
// would make the listener answer 421 to everyone else. Here a client address (IPv6: its /64, which one
// customer usually holds whole) gets at most `maxPerClient` connections; a connection is closed when it has
// made no progress (an accepted AUTH, MAIL, RCPT or DATA: NOOP, RSET, HELP, EHLO do not count) for
// `idleMs`, `sessionMs` after it opened, and on submission when it has not authenticated within `authMs`.
// Each refusal is 421 4.7.0 with the reason (RFC 5321 3.8: the server may close with 421 at any time;
// RFC 3463 X.7.0: a policy reason). The decision on a message whose data is in is never cut off: the client
// would retry a message that may have been accepted.
// A connection counts from its accept, not from onConnect: smtp-server begins a session (and calls onConnect)
// 100 ms after a plain connection opens, and on an implicit-TLS port (RFC 8314 3.3) only after the handshake,
// for which it keeps up to maxClients connections waiting its socket timeout. Counted from onConnect, one
// address reconnecting as fast as it can filled the global maxClients with connections not yet refused (others
// met smtp-server's "421 Too many connected clients"), and one opening 500 connections without starting TLS
// held every pending place of the TLS port. A connection over its client's share is refused at its accept,
// before smtp-server sees it: 421 on a plain port, closed at once on a TLS port (nothing can be said before TLS).
import type { Socket } from 'node:net';
import type { SMTPServer, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { SmtpSlotLimits } from '../infra/config-types.js';
import type { Clock } from '../infra/clock.js';
import type { Logger } from '../infra/logger.js';
import { bump } from '../infra/count-map.js';
import { clientKey } from './client-key.js';

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

const seconds = (ms: number) => `${Math.round(ms / 1000)} seconds`;
const refusal = (text: string) => Object.assign(new Error(`4.7.0 ${text}`), { responseCode: 421 });

export class ClientSlots {
  private readonly slots = new Map<SMTPServerSession, Slot>();
  private readonly perClient = new Map<string, number>();
  /** Connections accepted whose session has not begun, by `client|port` (a /64 may repeat a port): what ends
   * each one's count. */
  private readonly pending = new Map<string, Array<() => void>>();
  /** How many per client. */
  private readonly pendingPerClient = new Map<string, number>();
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
    this.countFromAccept(server);
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

  /**
   * Puts a slot check in front of smtp-server's handler of new TCP connections (the net.Server's 'connection'
   * listener): a connection is counted from its accept until its session begins (admit) or it closes.
   */
  private countFromAccept(server: SMTPServer): void {
    const { secure, needsUpgrade, secured } = server.options;
    const handshake = Boolean(secure && !needsUpgrade && !secured);
    const net = server.server;
    const accept = net.listeners('connection') as Array<(socket: Socket) => void>;
    net.removeAllListeners('connection');
    net.on('connection', (socket: Socket) => {
      const client = clientKey(socket.remoteAddress);
      if (this.inUse(client) >= this.limits.maxPerClient) {
        this.log.info({ event: 'smtp-slot', client, reason: 'per-client' }, 'connection refused at accept: too many from one client');
        socket.on('error', () => {});
        if (handshake) socket.destroy();
        else socket.end(`421 4.7.0 ${this.tooMany()}\r\n`, () => socket.destroy());
        return;
      }
      const id = `${client}|${socket.remotePort}`;
      const end = () => {
        const list = this.pending.get(id)?.filter((e) => e !== end) ?? [];
        if (list.length) this.pending.set(id, list);
        else this.pending.delete(id);
        bump(this.pendingPerClient, client, -1);
        socket.off('close', end);
      };
      this.pending.set(id, [...(this.pending.get(id) ?? []), end]);
      bump(this.pendingPerClient, client, 1);
      socket.once('close', end);
      for (const a of accept) a.call(net, socket);
    });
  }

  private tooMany(): string {
    return `Too many connections from your address (at most ${this.limits.maxPerClient} at once); close one and try again later`;
  }

  /** Connections `client` holds: sessions, and connections whose session has not begun. */
  private inUse(client: string): number {
    return (this.perClient.get(client) ?? 0) + (this.pendingPerClient.get(client) ?? 0);
  }

  private admit(session: SMTPServerSession): Error | null {
    const client = clientKey(session.remoteAddress);
    // The connection's count from its accept ends, the session's begins.
    this.pending.get(`${client}|${session.remotePort}`)?.[0]?.();
    if (this.inUse(client) >= this.limits.maxPerClient) {
      this.log.info({ event: 'smtp-slot', client, reason: 'per-client' }, 'connection refused: too many from one client');
      return refusal(this.tooMany());
    }
    const now = this.clock.now();
    bump(this.perClient, client, 1);
    this.slots.set(session, { client, openedAt: now, progressAt: now, authenticated: false, inData: false, deciding: false });
    return null;
  }

  private release(session: SMTPServerSession): void {
    const slot = this.slots.get(session);
    if (!slot) return;
    this.slots.delete(session);
    bump(this.perClient, slot.client, -1);
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
