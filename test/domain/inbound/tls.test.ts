// STARTTLS on the bounce listener (RFC 3207) with MAILROOM_INBOUND_TLS_CERT/_KEY, over real SMTP with the
// self-signed certificate in test/fixtures/tls (CN and SAN localhost, 127.0.0.1; valid until 2126).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { inboundSmtpPort } from '../../../src/smtp-listeners/inbound-listener.js';
import { loadFixture } from '../../fixtures/load.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { deliverReport, FROM, sendOne } from './helpers.js';
import { cliArgs } from '../../helpers/process.js';

const CERT = fileURLToPath(new URL('../../fixtures/tls/localhost.crt', import.meta.url));
const KEY = fileURLToPath(new URL('../../fixtures/tls/localhost.key', import.meta.url));
const TLS_ENV = { MAILROOM_INBOUND_TLS_CERT: CERT, MAILROOM_INBOUND_TLS_KEY: KEY };

/** The EHLO keywords the listener advertises (RFC 5321 4.1.1.1), read over a raw socket. */
function ehloKeywords(port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buf = '';
    let sent = false;
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (d: string) => {
      buf += d;
      if (!sent && /^220 .*\r\n/m.test(buf)) {
        sent = true;
        buf = '';
        socket.write('EHLO mta.test\r\n');
      } else if (sent && /^250 .*\r\n/m.test(buf)) {
        socket.end('QUIT\r\n');
        resolve(buf.split('\r\n').filter(Boolean).slice(1).map((l) => l.slice(4).split(' ')[0].toUpperCase()));
      }
    });
  });
}

/** Delivers a report the way an MTA that insists on encryption does: STARTTLS, then verify the certificate. */
async function deliverOverTls(s: TestService, to: string, raw: string) {
  const t = nodemailer.createTransport({
    host: '127.0.0.1',
    port: inboundSmtpPort(s.ctx)!,
    secure: false,
    requireTLS: true,
    tls: { ca: readFileSync(CERT), servername: 'localhost', minVersion: 'TLSv1.2' },
    connectionTimeout: 5000,
  });
  try {
    return await t.sendMail({ envelope: { from: '', to }, raw });
  } finally {
    t.close();
  }
}

describe('inbound listener with STARTTLS configured', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: TLS_ENV });
    await addConfirmedSender(s, FROM);
  });
  after(() => s.close());

  it('advertises STARTTLS and records a DSN delivered over TLS with a verified certificate', async () => {
    assert.ok((await ehloKeywords(inboundSmtpPort(s.ctx)!)).includes('STARTTLS'));
    const m = await sendOne(s, 'tls-unknown@recipient.example');
    const raw = loadFixture('postfix-unknown-user.eml', { recipient: m.recipient, verp: m.verp, messageId: m.messageId });
    const info = await deliverOverTls(s, m.verp, raw);
    assert.match(info.response, /^250/);
    const r = await s.request('GET', `/bounces?count=10&offset=0&messageID=${m.messageId}`);
    assert.equal(r.body.Bounces.length, 1);
    assert.equal(r.body.Bounces[0].Type, 'HardBounce');
    assert.equal(r.body.Bounces[0].Email, 'tls-unknown@recipient.example');
  });

  it('still takes reports in plaintext from MTAs that do not use TLS (RFC 3207 4)', async () => {
    const m = await sendOne(s, 'plain@recipient.example');
    const raw = loadFixture('sendmail-mailbox-full.eml', { recipient: m.recipient, verp: m.verp, messageId: m.messageId });
    const answer = await deliverReport(s, m.verp, raw);
    assert.ok(answer.ok, answer.response);
    const r = await s.request('GET', `/bounces?count=10&offset=0&messageID=${m.messageId}`);
    assert.equal(r.body.Bounces[0]?.Type, 'SoftBounce');
  });

  it('refuses a client that offers only TLS 1.0/1.1 (RFC 8996)', async () => {
    const m = await sendOne(s, 'old-tls@recipient.example');
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: inboundSmtpPort(s.ctx)!,
      requireTLS: true,
      // SECLEVEL=0 lets this client offer TLS 1.1 at all; the refusal must then come from the server.
      tls: { ca: readFileSync(CERT), servername: 'localhost', minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' },
      connectionTimeout: 5000,
    });
    try {
      await assert.rejects(t.sendMail({ envelope: { from: '', to: m.verp }, raw: 'Subject: x\r\n\r\nx\r\n' }), (e: Error & { code?: string }) => {
        assert.match(`${e.code} ${e.message}`, /protocol version/i);
        return true;
      });
    } finally {
      t.close();
    }
  });
});

describe('inbound listener without a certificate', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  it('offers no STARTTLS (never smtp-server’s built-in certificate), so requireTLS fails', async () => {
    assert.equal((await ehloKeywords(inboundSmtpPort(s.ctx)!)).includes('STARTTLS'), false);
    await assert.rejects(deliverOverTls(s, `fbl@${s.config.returnPathDomain}`, 'Subject: x\r\n\r\nx\r\n'));
  });
});

describe('MAILROOM_INBOUND_TLS_CERT / _KEY validation', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-tls-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const fails = (env: Record<string, string>, variable: string, message: RegExp) =>
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && e.variable === variable && message.test(e.message) && e.message.startsWith(variable),
      JSON.stringify(env),
    );

  it('reads both files, or neither', () => {
    const c = loadConfig(TLS_ENV);
    assert.equal(c.inboundTls?.certPath, CERT);
    assert.match(c.inboundTls!.cert, /BEGIN CERTIFICATE/);
    assert.match(c.inboundTls!.key, /PRIVATE KEY/);
    assert.equal(loadConfig({}).inboundTls, null);
    assert.equal(loadConfig({ MAILROOM_INBOUND_TLS_CERT: '', MAILROOM_INBOUND_TLS_KEY: '' }).inboundTls, null);
  });

  it('names the variable for a missing partner, a bad path, a file that is not PEM, and a key of another certificate', () => {
    fails({ MAILROOM_INBOUND_TLS_CERT: CERT }, 'MAILROOM_INBOUND_TLS_KEY', /together with MAILROOM_INBOUND_TLS_CERT/);
    fails({ MAILROOM_INBOUND_TLS_KEY: KEY }, 'MAILROOM_INBOUND_TLS_CERT', /together/);
    fails({ ...TLS_ENV, MAILROOM_INBOUND_TLS_CERT: join(dir, 'missing.crt') }, 'MAILROOM_INBOUND_TLS_CERT', /cannot read .*ENOENT/);
    fails({ ...TLS_ENV, MAILROOM_INBOUND_TLS_KEY: join(dir, 'missing.key') }, 'MAILROOM_INBOUND_TLS_KEY', /cannot read/);
    fails({ ...TLS_ENV, MAILROOM_INBOUND_TLS_CERT: dir }, 'MAILROOM_INBOUND_TLS_CERT', /cannot read/);
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate\n');
    fails({ ...TLS_ENV, MAILROOM_INBOUND_TLS_CERT: join(dir, 'junk.pem') }, 'MAILROOM_INBOUND_TLS_CERT', /not a PEM certificate/);
    fails({ ...TLS_ENV, MAILROOM_INBOUND_TLS_KEY: join(dir, 'junk.pem') }, 'MAILROOM_INBOUND_TLS_KEY', /not a PEM private key/);
    // Swapped: the certificate file given as the key.
    fails({ MAILROOM_INBOUND_TLS_CERT: CERT, MAILROOM_INBOUND_TLS_KEY: CERT }, 'MAILROOM_INBOUND_TLS_KEY', /not a PEM private key/);
    // A valid key that belongs to no certificate here.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    writeFileSync(join(dir, 'other.key'), privateKey);
    fails({ ...TLS_ENV, MAILROOM_INBOUND_TLS_KEY: join(dir, 'other.key') }, 'MAILROOM_INBOUND_TLS_KEY', /not the private key of/);
  });

  it('a bad path stops `mailroom serve` before it starts, with a message naming the variable', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const r = spawnSync(process.execPath, [...cliArgs(), 'serve'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        MAILROOM_DATABASE_URL: join(dir, 'never-created.db'),
        MAILROOM_PORT: '0',
        MAILROOM_INBOUND_SMTP_PORT: '0',
        MAILROOM_INBOUND_TLS_CERT: join(dir, 'nope.crt'),
        MAILROOM_INBOUND_TLS_KEY: KEY,
      },
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /configuration error: MAILROOM_INBOUND_TLS_CERT: cannot read/);
    assert.doesNotMatch(r.stdout, /listening|token/i);
  });
});
