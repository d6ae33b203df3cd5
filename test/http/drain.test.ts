// The HTTP side of a SIGTERM drain (serve.ts calls app.close()): a request already in flight is answered as
// usual, while a request that arrives once the drain began gets 503 with the {ErrorCode, Message} body of
// every other failure and Connection: close, so that its client retries on another instance.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { waitFor, withDeadline } from '../helpers/wait.js';

/** A raw HTTP/1.1 connection: what was written so far, and everything the server answered. */
async function open(url: string): Promise<{ socket: Socket; received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (data += d));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return { socket, received: () => data };
}

function parse(raw: string): { status: number; headers: Map<string, string>; body: string } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

describe('HTTP during a drain', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'drain@example.test');
  });
  after(async () => {
    await s.close();
  });

  it('finishes the request in flight and answers a new one 503 {ErrorCode, Message} with Connection: close', async () => {
    // In flight: a send whose body is still arriving when the drain begins.
    const body = JSON.stringify({ From: 'drain@example.test', To: 'someone@example.net', Subject: 'in flight', TextBody: 'hello' });
    const slow = await open(s.url);
    slow.socket.write(
      `POST /email HTTP/1.1\r\nHost: mailroom\r\nContent-Type: application/json\r\nAccept: application/json\r\n` +
        `X-Service-Server-Token: ${s.serverToken}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    // A second client whose request line is under way when the drain begins (a connection that has started a
    // request is not idle, so the listener's close leaves it open).
    const late = await open(s.url);
    late.socket.write('GET /server HTTP/1.1\r\n');
    // Both requests have reached the server before it starts closing.
    await waitFor(async () => (await countConnections(s)) >= 2, { what: 'two open connections' });

    const closing = s.app.close();
    late.socket.write(`Host: mailroom\r\nAccept: application/json\r\nX-Service-Server-Token: ${s.serverToken}\r\n\r\n`);
    await waitFor(() => late.received().includes('\r\n\r\n') && parse(late.received()).body.length > 0, { what: 'the answer to the late request' });
    const refused = parse(late.received());
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('connection'), 'close');
    assert.match(refused.headers.get('content-type') ?? '', /^application\/json/);
    const json = JSON.parse(refused.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json).sort(), ['ErrorCode', 'Message']);
    assert.equal(json.ErrorCode, 100);
    assert.match(String(json.Message), /shutting down/);

    // The request in flight is answered as usual once its body is complete, and its message is stored.
    slow.socket.write(body.slice(10));
    await waitFor(() => parse(slow.received()).body.length > 0, { what: 'the answer to the request in flight' });
    const sent = parse(slow.received());
    assert.equal(sent.status, 200, sent.body);
    assert.equal(sent.headers.get('connection'), 'close', 'the connection ends with its answer, so the drain need not wait for it to idle out');
    const { MessageID } = JSON.parse(sent.body) as { MessageID: string };
    await withDeadline(closing, 4_000, 'the listener to close (before the 5 s idle timeout)');
    assert.ok(await s.ctx.db.selectFrom('messages').select('id').where('id', '=', MessageID).executeTakeFirst(), 'the message in flight was stored');
    slow.socket.destroy();
    late.socket.destroy();
  });
});

const countConnections = (s: TestService): Promise<number> =>
  new Promise((resolve, reject) => s.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
