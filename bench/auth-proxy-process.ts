// For bench/submission: Postfix's smtp-source cannot authenticate, and mailroom's submission port requires
// AUTH. This child process sits between them on loopback and, in each session, sends `AUTH PLAIN <token>`
// before the client's first MAIL FROM, swallowing the 235; everything else is piped as is. It runs in its
// own process so that it shares neither the event loop nor the figures of what is measured.
//   argv: <upstream port> <token>; prints nothing, sends { port } over IPC once listening.
import { connect, createServer } from 'node:net';

const upstreamPort = Number(process.argv[2]);
const token = process.argv[3];
const auth = `AUTH PLAIN ${Buffer.from(`\0${token}\0${token}`).toString('base64')}\r\n`;

const server = createServer((client) => {
  const upstream = connect(upstreamPort, '127.0.0.1');
  let state: 'before' | 'waiting' | 'authed' = 'before';
  let held: Buffer | null = null;
  let reply = '';
  upstream.on('data', (d: Buffer) => {
    if (state !== 'waiting') return void client.write(d);
    reply += d.toString('latin1');
    if (!reply.endsWith('\r\n')) return;
    if (!reply.startsWith('235')) {
      client.end(`421 4.7.0 bench proxy: AUTH refused: ${reply.trim()}\r\n`);
      upstream.destroy();
      return;
    }
    state = 'authed';
    upstream.write(held!);
    held = null;
  });
  client.on('data', (d: Buffer) => {
    // smtp-source does not pipeline (its manual, BUGS): a command arrives alone.
    if (state === 'before' && /^MAIL FROM/i.test(d.toString('latin1', 0, 9))) {
      state = 'waiting';
      held = d;
      upstream.write(auth);
      return;
    }
    upstream.write(d);
  });
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
  client.on('close', close);
  upstream.on('close', close);
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.send!({ port: typeof a === 'object' && a ? a.port : 0 });
});
process.on('disconnect', () => process.exit(0));
