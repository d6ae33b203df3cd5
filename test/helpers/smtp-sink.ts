// A real SMTP server on loopback (smtp-server) that keeps what it receives, for delivery tests. It can
// answer chosen recipients with chosen replies (450, 550, ...) to exercise per-recipient outcomes.
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Remote address of the client. */
  remoteAddress: string;
  /** The name the client gave in EHLO/HELO. */
  ehlo: string;
}

export interface SmtpSink {
  port: number;
  host: string;
  messages: ReceivedMail[];
  /** Reply for RCPT TO of an address (lowercased): e.g. { code: 550, message: '5.1.1 No such user' }. */
  rcptReplies: Map<string, { code: number; message: string }>;
  /** Reply for DATA of the next messages (consumed one per message). */
  dataReplies: Array<{ code: number; message: string }>;
  /** Holds each DATA phase until this promise resolves (to test crashes mid-delivery). */
  holdData: Promise<void> | null;
  /** Recipients (lowercased) whose DATA makes the peer cut the connection mid-transfer, with no reply. */
  dropData: Set<string>;
  /** Connections cut so far because of dropData. */
  dropped: number;
  /** Cuts every open connection (as a restarting server would): clients' pooled sessions are gone. */
  cutConnections(): void;
  close(): Promise<void>;
}

export async function startSmtpSink(o: { auth?: { user: string; pass: string }; options?: Partial<SMTPServerOptions> } = {}): Promise<SmtpSink> {
  const sink: SmtpSink = {
    port: 0,
    host: '127.0.0.1',
    messages: [],
    rcptReplies: new Map(),
    dataReplies: [],
    holdData: null,
    dropData: new Set(),
    dropped: 0,
    cutConnections: () => {},
    close: async () => {},
  };
  // smtp-server keeps its connections in a set that its typings do not show.
  const connections = () => (server as unknown as { connections: Set<{ session: unknown; _socket: { destroy(): void } }> }).connections;
  const smtpError = (r: { code: number; message: string }) => Object.assign(new Error(r.message), { responseCode: r.code });
  const server = new SMTPServer({
    secure: false,
    authOptional: !o.auth,
    disabledCommands: o.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    logger: false,
    size: 60 * 1024 * 1024,
    onAuth(auth, _session, cb) {
      if (o.auth && auth.username === o.auth.user && auth.password === o.auth.pass) return cb(null, { user: auth.username });
      cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(addr, _session, cb) {
      const r = sink.rcptReplies.get(addr.address.toLowerCase());
      if (r && r.code >= 400) return cb(smtpError(r));
      cb();
    },
    onData(stream, session, cb) {
      if (session.envelope.rcptTo.some((r) => sink.dropData.has(r.address.toLowerCase()))) {
        stream.once('data', () => {
          sink.dropped++;
          [...connections()].find((c) => c.session === session)?._socket.destroy();
        });
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      // Only a test's own holdData can reject: the test that set it sees that failure itself.
      stream.on('end', () => void (async () => {
        if (sink.holdData) await sink.holdData;
        const reply = sink.dataReplies.shift();
        if (reply && reply.code >= 400) return cb(smtpError(reply));
        sink.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          remoteAddress: session.remoteAddress,
          ehlo: session.hostNameAppearsAs,
        });
        cb(null, reply?.message ?? '2.0.0 Ok: queued');
      })());
    },
    ...o.options,
  });
  // A client killed mid-session (test/scale) resets its connections; smtp-server reports that as an 'error'
  // event, an uncaught exception without a listener. The session is simply gone, as for a real server.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const addr = server.server.address();
  sink.port = typeof addr === 'object' && addr ? addr.port : 0;
  sink.cutConnections = () => {
    for (const c of connections()) c._socket.destroy();
  };
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}
