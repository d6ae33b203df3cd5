// The API over TLS without a proxy (MAILROOM_HTTP_TLS_CERT/_KEY): clients whose scheme is fixed to https
// (Symfony's Postmark bridge, which Laravel uses: symfony-mailer.test.ts drives it through this listener)
// reach mailroom directly. The certificate is the self-signed one in test/fixtures/tls (CN and SAN
// localhost and 127.0.0.1), trusted here as its own CA.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { runProgram } from './programs.js';

const CERT = fileURLToPath(new URL('../fixtures/tls/localhost.crt', import.meta.url));
const KEY = fileURLToPath(new URL('../fixtures/tls/localhost.key', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Answer {
  status: number;
  body: string;
  protocol: string;
  authorized: boolean;
}

function post(url: string, path: string, body: unknown, token: string, tls: { ca?: Buffer; minVersion?: 'TLSv1.2'; maxVersion?: 'TLSv1.1' } = {}): Promise<Answer> {
  const u = new URL(path, url);
  const payload = JSON.stringify(body);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      u,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-postmark-server-token': token, 'content-length': Buffer.byteLength(payload) },
        ...tls,
        ...(tls.maxVersion ? { ciphers: 'DEFAULT@SECLEVEL=0', minVersion: 'TLSv1' } : {}),
      },
      (res) => {
        const socket = res.socket as { getProtocol?: () => string | null; authorized?: boolean };
        const protocol = socket.getProtocol?.() ?? 'none';
        const authorized = socket.authorized ?? false;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), protocol, authorized }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('the API over HTTPS (MAILROOM_HTTP_TLS_CERT/_KEY)', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { MAILROOM_HTTP_TLS_CERT: CERT, MAILROOM_HTTP_TLS_KEY: KEY } });
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(async () => {
    await s.close();
  });

  it('answers a send over TLS 1.2 or later with the certificate verified, and stores the message', async () => {
    assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await post(s.url, '/email', { From: 'sender@example.com', To: 'reader@dest.example', Subject: 'Over TLS', TextBody: 'hi' }, s.serverToken, { ca: readFileSync(CERT) });
    assert.equal(r.status, 200, r.body);
    assert.ok(r.authorized, 'the client verified the certificate against its CA');
    assert.match(r.protocol, /^TLSv1\.[23]$/);
    const id = (JSON.parse(r.body) as { MessageID: string }).MessageID;
    const row = await s.ctx.db.selectFrom('messages').select('subject').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.subject, 'Over TLS');
    // The links mailroom writes point at the scheme it serves, unless MAILROOM_PUBLIC_URL says otherwise.
    assert.match(s.config.publicUrl, /^https:\/\//);
  });

  it('refuses plain HTTP and TLS 1.1 on that port', async () => {
    await assert.rejects(post(s.url.replace('https:', 'http:'), '/email', {}, s.serverToken));
    await assert.rejects(post(s.url, '/email', {}, s.serverToken, { ca: readFileSync(CERT), maxVersion: 'TLSv1.1' }), /protocol|version|alert/i);
  });

  it("the image's health check passes against the TLS port", async () => {
    const docker = readFileSync(`${ROOT}/Dockerfile`, 'utf8');
    const line = docker.slice(docker.indexOf('HEALTHCHECK'));
    const cmd = JSON.parse(line.slice(line.indexOf('CMD') + 3, line.indexOf(']\n') + 1).trim()) as string[];
    // Spawned without waiting synchronously: the service answering it runs in this process.
    const r = await runProgram(process.execPath, cmd.slice(1), { MAILROOM_PORT: new URL(s.url).port, MAILROOM_HTTP_TLS_CERT: CERT }, 30_000);
    assert.equal(r.code, 0, r.stderr);
  });

  it('a certificate without its key, or a key of another certificate, stops the start naming the variable', () => {
    assert.throws(() => loadConfig({ MAILROOM_HTTP_TLS_CERT: CERT }), (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_HTTP_TLS_KEY');
    const other = fileURLToPath(new URL('../fixtures/tls/recipient.key', import.meta.url));
    assert.throws(() => loadConfig({ MAILROOM_HTTP_TLS_CERT: CERT, MAILROOM_HTTP_TLS_KEY: other }), (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_HTTP_TLS_KEY');
  });
});
