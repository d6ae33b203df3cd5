// A real HTTP server on loopback standing in for a webhook target: it records every request (headers and
// exact body) and answers with a status and a delay the test programs, or holds its answers until the test
// releases them (so a test about ordering depends on no wall-clock duration).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact body bytes as text. */
  body: string;
  json: any;
}

export interface WebhookReceiver {
  /** "http://127.0.0.1:<port>" */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight(): number;
  maxInFlight(): number;
  /** Status to answer with: a number, or a function of the request (and its 1-based index). */
  respond(status: number | ((r: ReceivedRequest, n: number) => number)): void;
  /** Delay before answering, in milliseconds. */
  delay(ms: number): void;
  /** Holds every answer (current and later) until release(): a target that has not answered yet. */
  hold(): void;
  /** Answers the held requests and stops holding. */
  release(): void;
  /** Requests answered so far (a request cut off by the client before its answer is not counted). */
  answered(): number;
  /** Stops listening: the target is down (connection refused) until up(). */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  let status: number | ((r: ReceivedRequest, n: number) => number) = 200;
  let delayMs = 0;
  let current = 0;
  let peak = 0;
  let holding = false;
  let held: (() => void)[] = [];
  let answeredCount = 0;
  const handler: http.RequestListener = (req, res) => {
    current++;
    peak = Math.max(peak, current);
    res.on('close', () => current--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json };
      requests.push(r);
      const code = typeof status === 'function' ? status(r, requests.length) : status;
      const answer = () => {
        if (res.destroyed) return;
        answeredCount++;
        res.writeHead(code, { 'content-type': 'text/plain' });
        res.end(code >= 200 && code < 300 ? 'ok' : `status ${code}`);
      };
      if (holding) held.push(answer);
      else if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  };
  let server = http.createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    inFlight: () => current,
    maxInFlight: () => peak,
    respond(s) {
      status = s;
    },
    delay(ms) {
      delayMs = ms;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      const waiting = held;
      held = [];
      for (const answer of waiting) answer();
    },
    answered: () => answeredCount,
    down: stop,
    async up() {
      server = http.createServer(handler);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
