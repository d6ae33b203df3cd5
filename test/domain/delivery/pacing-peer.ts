// A receiving MX for the pacing tests: a real smtp-server on a loopback address that counts connections
// (at once and in all) and RCPT commands, accepts, and throttles when told to, the way large providers do:
// at RCPT (Gmail's 450 4.7.28) or at the greeting (421 4.7.0 "Try again later").
import { SMTPServer } from 'smtp-server';

export interface ThrottlingPeer {
  host: string;
  port: number;
  connections: number;
  open: number;
  maxOpen: number;
  rcpts: number;
  /** Recipients whose message was taken. */
  accepted: string[];
  /** RCPTs let through (counted at RCPT: pipelined transactions on two connections race to DATA). */
  granted: number;
  /** Throttle at RCPT once this many were let through (null: never). */
  throttleAfter: number | null;
  rcptReply: { code: number; message: string };
  /** Refuse every new connection at the greeting with this reply. */
  greeting: { code: number; message: string } | null;
  close(): Promise<void>;
}

export async function startThrottlingPeer(host: string, port = 0): Promise<ThrottlingPeer> {
  const peer: ThrottlingPeer = {
    host,
    port,
    connections: 0,
    open: 0,
    maxOpen: 0,
    rcpts: 0,
    granted: 0,
    accepted: [],
    throttleAfter: null,
    rcptReply: { code: 450, message: '4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.' },
    greeting: null,
    close: async () => {},
  };
  const fail = (r: { code: number; message: string }) => Object.assign(new Error(r.message), { responseCode: r.code });
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, cb) {
      peer.connections++;
      if (peer.greeting) return cb(fail(peer.greeting));
      peer.open++;
      peer.maxOpen = Math.max(peer.maxOpen, peer.open);
      cb();
    },
    onClose() {
      if (peer.open > 0) peer.open--;
    },
    onRcptTo(_addr, _session, cb) {
      peer.rcpts++;
      if (peer.throttleAfter !== null && peer.granted >= peer.throttleAfter) return cb(fail(peer.rcptReply));
      peer.granted++;
      cb();
    },
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        peer.accepted.push(...session.envelope.rcptTo.map((r) => r.address));
        cb(null, '2.0.0 Ok: queued');
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.server.address();
  peer.port = typeof addr === 'object' && addr ? addr.port : 0;
  peer.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return peer;
}
