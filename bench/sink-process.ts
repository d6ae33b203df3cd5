// A counting SMTP sink for bench/deliver, run as a child process so that it does not share the event loop
// (or the core) of what is being measured. Prints its port; answers "count" messages over IPC with the
// messages and bytes received since the last "reset" and the CPU milliseconds the sink spent meanwhile.
import { SMTPServer } from 'smtp-server';

let count = 0;
let bytes = 0;
let cpu0 = process.cpuUsage();
const cpuMs = () => {
  const c = process.cpuUsage(cpu0);
  return (c.user + c.system) / 1000;
};
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
  if (m === 'count') process.send!({ count, bytes, cpuMs: cpuMs() });
  if (m === 'reset') {
    count = 0;
    bytes = 0;
    cpu0 = process.cpuUsage();
    process.send!({ count, bytes, cpuMs: 0 });
  }
});
