// A spamd that holds every check until the test lets it answer: a parser thread busy with one message for as
// long as a test needs (the message's spam check runs on the thread), with no timing guess.
import { createServer, type Server, type Socket } from 'node:net';

export interface HeldSpamd {
  address: string;
  /** Checks received and not yet answered. */
  held(): number;
  /** Answers every held check: not spam, score 0.1. */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldSpamd(): Promise<HeldSpamd> {
  const sockets: Socket[] = [];
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => undefined);
    // Held once the whole request is in (the client half-closes after the message).
    socket.on('data', () => undefined);
    socket.on('end', () => sockets.push(socket));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  const release = () => {
    for (const s of sockets.splice(0)) s.end('SPAMD/1.1 0 EX_OK\r\nSpam: False ; 0.1 / 5.0\r\n\r\nNONE');
  };
  return {
    address: `127.0.0.1:${port}`,
    held: () => sockets.length,
    release,
    async close() {
      release();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
