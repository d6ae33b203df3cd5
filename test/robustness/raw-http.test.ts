// tier: slow
// Requests no HTTP client library would send, written byte by byte to a socket: broken request lines, bare
// CR and NUL in headers, obsolete line folding, oversize headers, conflicting or bogus Content-Length and
// Transfer-Encoding, raw non-ASCII bytes in the path and in tokens. Every answer must be < 500 and, when it is
// a 4xx, JSON {ErrorCode, Message}; the service must keep answering afterwards.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { SERVER_TOKEN, startService, type TestService } from '../helpers/service.js';

interface RawAnswer {
  statuses: number[];
  /** Content-Type and body of the first answer. */
  contentType: string;
  body: string;
}

/** Writes `bytes`, half-closes, and reads until the server closes (bounded by a 10 s guard, never a sleep). */
function rawRequest(port: number, bytes: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const guard = setTimeout(() => {
      sock.destroy();
      reject(new Error('no answer and no close within 10 s'));
    }, 10_000);
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', () => {
      /* a reset after the answer is fine; the answer is judged below */
    });
    sock.on('close', () => {
      clearTimeout(guard);
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/^HTTP\/\d\.\d (\d{3})/gm)].map((m) => Number(m[1]));
      const head = text.split('\r\n\r\n')[0] ?? '';
      const contentType = /^content-type:\s*(.*)$/im.exec(head)?.[1] ?? '';
      const length = Number(/^content-length:\s*(\d+)$/im.exec(head)?.[1] ?? -1);
      const rest = Buffer.from(text.slice(head.length + 4), 'latin1');
      const body = (length >= 0 ? rest.subarray(0, length) : rest).toString('utf8');
      resolve({ statuses, contentType, body });
    });
    sock.end(bytes);
  });
}

const b = (...parts: (string | Buffer | number[])[]) => Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Array.isArray(p) ? Buffer.from(p) : Buffer.from(p, 'latin1'))));
const tok = `X-Service-Server-Token: ${SERVER_TOKEN}\r\n`;
const json = '{"Name":"x"}';

const CASES: { label: string; bytes: Buffer }[] = [
  { label: 'garbage request line', bytes: b('GARBAGE\r\n\r\n') },
  { label: 'empty request line', bytes: b('\r\n\r\n\r\n') },
  { label: 'bare CR inside a header value', bytes: b('GET /server HTTP/1.1\r\nHost: x\r\nX-Service-Server-Token: a\rb\r\nConnection: close\r\n\r\n') },
  { label: 'NUL inside a header value', bytes: b('GET /server HTTP/1.1\r\nHost: x\r\nX-Service-Server-Token: a', [0], 'b\r\nConnection: close\r\n\r\n') },
  { label: 'obsolete line folding of the token', bytes: b(`GET /server HTTP/1.1\r\nHost: x\r\nX-Service-Server-Token: ${SERVER_TOKEN}\r\n  folded\r\nConnection: close\r\n\r\n`) },
  { label: 'space in a header name', bytes: b('GET /server HTTP/1.1\r\nHost: x\r\nX Bad: 1\r\nConnection: close\r\n\r\n') },
  { label: 'header section over 16 KB', bytes: b(`GET /server HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20_000)}\r\nConnection: close\r\n\r\n`) },
  { label: 'request target over 16 KB', bytes: b(`GET /messages?count=1&offset=0&tag=${'t'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'CRLF injected into the request target', bytes: b('GET /server\r\nX-Injected: 1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n') },
  { label: 'raw UTF-8 and invalid bytes in the path', bytes: b('GET /message-streams/', [0xc3, 0xa9, 0xff, 0xfe, 0xf0, 0x9f, 0x98, 0x80], ` HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'raw bytes in the query', bytes: b('GET /messages?count=1&offset=0&tag=', [0xff, 0x00, 0xed, 0xa0, 0x80], ` HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'UTF-8 bytes in the token', bytes: b('GET /server HTTP/1.1\r\nHost: x\r\nX-Service-Server-Token: ', [0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80, 0xff], '\r\nConnection: close\r\n\r\n') },
  { label: 'two different server tokens', bytes: b(`GET /server HTTP/1.1\r\nHost: x\r\n${tok}X-Service-Server-Token: other\r\nConnection: close\r\n\r\n`) },
  { label: 'both token kinds at once', bytes: b(`GET /servers?count=1&offset=0 HTTP/1.1\r\nHost: x\r\n${tok}X-Service-Account-Token: nope\r\nConnection: close\r\n\r\n`) },
  { label: 'UTF-8 bytes in Idempotency-Key', bytes: b('POST /email HTTP/1.1\r\nHost: x\r\n', tok, 'Idempotency-Key: ', [0xe2, 0x80, 0xae, 0xff], `\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'UTF-8 bytes in Content-Type', bytes: b('PUT /server HTTP/1.1\r\nHost: x\r\n', tok, 'Content-Type: application/json; charset=', [0xff, 0xc3, 0xa9], `\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'Content-Length and Transfer-Encoding together', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`) },
  { label: 'two different Content-Lengths', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 12\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'non-numeric Content-Length', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: abc\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'huge Content-Length', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: 99999999999999999999\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'negative Content-Length', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: -1\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'Content-Length shorter than the body (the rest is a broken second request)', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}trailing junk\r\n\r\n`) },
  { label: 'Content-Length over the body limit', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'bad chunk size', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`) },
  { label: 'chunked body with extensions, split JSON', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2;ext=1\r\n{"\r\n4\r\nName\r\n6\r\n":1.5}\r\n0\r\n\r\n`) },
  { label: 'unknown transfer coding', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'gzip Content-Encoding on a plain body', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'body on a GET', bytes: b(`GET /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"a":[1]}`) },
  { label: 'Expect: 100-continue', bytes: b(`PUT /server HTTP/1.1\r\nHost: x\r\n${tok}Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`) },
  { label: 'HTTP/1.0 without Host', bytes: b(`GET /server HTTP/1.0\r\n${tok}\r\n`) },
  { label: 'absolute-form target', bytes: b(`GET http://evil.example/server HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'unknown method', bytes: b(`BREW /server HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'OPTIONS *', bytes: b('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n') },
  { label: 'target without a leading slash', bytes: b(`GET server HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'HTTP/2 preface', bytes: b('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n') },
  { label: 'unsupported HTTP version', bytes: b(`GET /server HTTP/3.7\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`) },
  { label: 'LF-only line endings', bytes: b(`GET /server HTTP/1.1\nHost: x\n${tok.trim()}\nConnection: close\n\n`) },
  { label: 'pipelined good and broken requests', bytes: b(`GET /server HTTP/1.1\r\nHost: x\r\n${tok}\r\nGET /se rver HTTP/1.1\r\nHost: x\r\n\r\n`) },
];

describe('robustness: raw HTTP that no client library would send', () => {
  let s: TestService;
  let port: number;
  before(async () => {
    s = await startService();
    port = Number(new URL(s.url).port);
  });
  after(() => s.close());

  it('answers each with a 4xx {ErrorCode, Message} (or a success), never a 5xx', async () => {
    const bad: string[] = [];
    for (const c of CASES) {
      const r = await rawRequest(port, c.bytes);
      const problem = r.statuses.find((x) => x >= 500)
        ? `answered ${r.statuses.join(', ')}`
        : r.statuses[0] >= 400 && !(() => {
              try {
                const j = JSON.parse(r.body);
                return r.contentType.includes('application/json') && Number.isInteger(j.ErrorCode) && typeof j.Message === 'string';
              } catch {
                return false;
              }
            })()
          ? `4xx answer is not {ErrorCode, Message}: ${r.contentType} ${r.body.slice(0, 200)}`
          : null;
      if (process.env.MAILROOM_ROBUST_VERBOSE) console.log(c.label, r.statuses, r.body.slice(0, 120));
      if (problem) bad.push(`${c.label}: ${problem}\n    request: ${JSON.stringify(c.bytes.toString('latin1').slice(0, 300))}`);
    }
    assert.deepEqual(bad, [], bad.join('\n'));
  });

  it('keeps answering afterwards', async () => {
    assert.equal((await s.request('GET', '/healthz', { token: null })).status, 200);
    assert.equal((await s.request('GET', '/server')).status, 200);
    await addConfirmedSender(s, 'raw@sender.example');
    const sent = await s.request('POST', '/email', { body: { From: 'raw@sender.example', To: 'to@dest.example', Subject: 'Hi', TextBody: 'Hello' } });
    assert.equal(sent.status, 200, sent.text);
  });
});
