// A counting HTTP receiver for bench/inbound, run as a child process (its own event loop and core): answers
// every POST 200 and reports over IPC how many JSON bodies arrived since the last "reset".
import http from 'node:http';

let count = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  let n = 0;
  req.on('data', (c: Buffer) => (n += c.length));
  req.on('end', () => {
    count++;
    bytes += n;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.send!({ port: typeof a === 'object' && a ? a.port : 0 });
});
process.on('message', (m: unknown) => {
  if (m === 'reset') {
    count = 0;
    bytes = 0;
  }
  process.send!({ count, bytes });
});
