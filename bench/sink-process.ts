// A counting SMTP sink for bench/deliver, run as a child process so that it does not share the event loop
// (or the core) of what is being measured. Prints its port; answers "count" messages over IPC.
import { SMTPServer } from 'smtp-server';

let count = 0;
let bytes = 0;
const server = new SMTPServer({
  secure: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  maxClients: 1000,
  disableReverseLookup: true,
  onData(stream, _session, cb) {
    stream.on('data', (c: Buffer) => (bytes += c.length));
    stream.on('end', () => {
      count++;
      cb(null, '2.0.0 Ok: queued');
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  const a = server.server.address();
  process.send!({ port: typeof a === 'object' && a ? a.port : 0 });
});
process.on('message', (m: unknown) => {
  if (m === 'count') process.send!({ count, bytes });
  if (m === 'reset') {
    count = 0;
    bytes = 0;
    process.send!({ count, bytes });
  }
});
