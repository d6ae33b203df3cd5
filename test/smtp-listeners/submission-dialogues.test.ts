// Raw SMTP dialogues with the submission listener: Debian's swaks as the client (pipelining, STARTTLS, AUTH
// PLAIN and LOGIN), and a hand-written dialogue where swaks has no option (SMTPUTF8).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { smtpDialogue } from '../helpers/raw-smtp.js';
import { CERT, FROM, KEY, startSubmissionRig, type SubmissionRig } from './helpers.js';

interface Run {
  code: number;
  out: string;
}

/** swaks in a child process (the listener runs in this one, so the call must not block). */
function swaks(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('swaks', ['--hide-informational', '--timeout', '20', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/** The server's reply lines in swaks's transcript ("<-" in clear, "<~" over TLS, "<**" an error). */
const replies = (out: string) => out.split('\n').filter((l) => /^\s*<(-|~|\*\*) /.test(l)).map((l) => l.replace(/^\s*<(-|~|\*\*) +/, ''));

/** A dialogue over a raw socket: each command is sent after the previous reply (multi-line replies read whole). */
const dialogue = (port: number, commands: string[], host = '127.0.0.1') => smtpDialogue(port, commands, { host });

const plain = (token: string) => Buffer.from(`\0${token}\0${token}`).toString('base64');

describe('SMTP submission dialogues', () => {
  let r: SubmissionRig;
  let server: string;
  before(async () => {
    r = await startSubmissionRig({ MAILROOM_SUBMISSION_TLS_CERT: CERT, MAILROOM_SUBMISSION_TLS_KEY: KEY });
    server = `127.0.0.1:${r.port}`;
  });
  after(async () => {
    await r.close();
  });
  const auth = () => ['--auth', 'PLAIN', '--auth-user', r.s.serverToken, '--auth-password', r.s.serverToken];

  it('advertises SIZE, PIPELINING, 8BITMIME, SMTPUTF8, ENHANCEDSTATUSCODES, STARTTLS and AUTH PLAIN LOGIN', async () => {
    const run = await swaks(['--server', server, '--quit-after', 'EHLO', '--to', 'x@dest.example']);
    const ehlo = replies(run.out).filter((l) => l.startsWith('250'));
    const keywords = ehlo.slice(1).map((l) => l.slice(4));
    for (const k of ['PIPELINING', '8BITMIME', 'SMTPUTF8', 'ENHANCEDSTATUSCODES', 'STARTTLS', 'AUTH PLAIN LOGIN']) assert.ok(keywords.includes(k), `${k} in ${keywords}`);
    assert.ok(keywords.some((k) => /^SIZE \d+$/.test(k)), `SIZE in ${keywords}`);
  });

  it('accepts a pipelined transaction (RFC 2920) and stores it', async () => {
    const run = await swaks(['--server', server, '--pipeline', ...auth(), '--from', 'env@shop.example', '--to', 'pipe@dest.example',
      '--header', `From: ${FROM}`, '--header', 'Subject: pipelined', '--body', 'hello']);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /250 2\.0\.0 Ok: queued as [0-9a-f-]{36}/);
    const list = await r.s.request('GET', '/messages?count=10&offset=0&recipient=pipe@dest.example');
    assert.equal(list.body.TotalCount, 1);
    assert.equal(list.body.Messages[0].Subject, 'pipelined');
  });

  it('takes AUTH LOGIN too, and refuses a mail without AUTH or with a bad token', async () => {
    let run = await swaks(['--server', server, '--auth', 'LOGIN', '--auth-user', r.s.serverToken, '--auth-password', r.s.serverToken,
      '--header', `From: ${FROM}`, '--to', 'login@dest.example']);
    assert.equal(run.code, 0, run.out);
    run = await swaks(['--server', server, '--header', `From: ${FROM}`, '--to', 'noauth@dest.example']);
    assert.notEqual(run.code, 0);
    assert.ok(replies(run.out).some((l) => /^530 5\.7\.0 Authentication required/.test(l)), run.out);
    run = await swaks(['--server', server, '--auth', 'PLAIN', '--auth-user', 'bad-token-00000000', '--auth-password', 'bad-token-00000000', '--to', 'x@dest.example']);
    assert.notEqual(run.code, 0);
    assert.ok(replies(run.out).some((l) => /^535 5\.7\.8 Authentication failed/.test(l)), run.out);
  });

  it('answers the API rules in SMTP terms: 51st RCPT, an unconfirmed From, a suppressed recipient', async () => {
    const to = Array.from({ length: 51 }, (_, i) => `s${i}@many.example`).join(',');
    let run = await swaks(['--server', server, ...auth(), '--header', `From: ${FROM}`, '--to', to]);
    const rcpt = replies(run.out).filter((l) => /^(250 2\.1\.5|452)/.test(l));
    assert.equal(rcpt.filter((l) => l.startsWith('250')).length, 50);
    assert.match(rcpt[50], /^452 4\.5\.3 Too many recipients: a message has at most 50/);

    await addConfirmedSender(r.s, 'unconfirmed@other.example', { confirmed: false });
    run = await swaks(['--server', server, ...auth(), '--header', 'From: unconfirmed@other.example', '--to', 'a@dest.example']);
    assert.notEqual(run.code, 0);
    assert.ok(replies(run.out).some((l) => /^550 5\.7\.1 The 'From' address you supplied \(unconfirmed@other\.example\) has not been confirmed/.test(l)), run.out);

    await r.s.request('POST', '/message-streams/outbound/suppressions', { body: { Suppressions: [{ EmailAddress: 'blocked@dest.example' }] } });
    run = await swaks(['--server', server, ...auth(), '--header', `From: ${FROM}`, '--to', 'blocked@dest.example']);
    assert.notEqual(run.code, 0);
    assert.ok(replies(run.out).some((l) => /^550 5\.7\.1 .*Found inactive addresses: blocked@dest\.example\./.test(l)), run.out);
  });

  it('takes an oversize message only up to SIZE (552 5.3.4)', async () => {
    const lines = await dialogue(r.port, ['EHLO client.test', `AUTH PLAIN ${plain(r.s.serverToken)}`, 'MAIL FROM:<a@shop.example> SIZE=20000000']);
    assert.match(lines[3], /^552 5\.3\.4 /);
  });

  it('answers SMTPUTF8 mail: UTF-8 headers and an IDN domain are sent; a non-ASCII mailbox name is refused (553 5.6.7)', async () => {
    const data = [`From: "Zoë" <${FROM}>`, 'To: <kunde@bücher.example>', 'Subject: Grüße aus Köln', 'Content-Type: text/plain; charset=utf-8', '', 'Schöne Grüße', '.'];
    const lines = await dialogue(r.port, [
      'EHLO client.test',
      `AUTH PLAIN ${plain(r.s.serverToken)}`,
      'MAIL FROM:<zoë@shop.example> SMTPUTF8 BODY=8BITMIME',
      'RCPT TO:<jörg@bücher.example>',
      'RCPT TO:<kunde@bücher.example>',
      'DATA',
      data.join('\r\n'),
      'QUIT',
    ]);
    assert.match(lines[2], /^235 2\.7\.0/);
    assert.match(lines[3], /^250 2\.1\.0/);
    assert.match(lines[4], /^553 5\.6\.7 Non-ASCII mailbox names are not supported/);
    assert.match(lines[5], /^250 2\.1\.5/);
    assert.match(lines[7], /^250 2\.0\.0 Ok: queued as /);
    const list = await r.s.request('GET', '/messages?count=10&offset=0&recipient=kunde@xn--bcher-kva.example');
    assert.equal(list.body.TotalCount, 1);
    assert.equal(list.body.Messages[0].Subject, 'Grüße aus Köln');
    await r.s.drain();
    // The sink (smtp-server) shows the IDN domain decoded again.
    const got = r.sink.messages.find((m) => m.to.some((t) => t === 'kunde@xn--bcher-kva.example' || t === 'kunde@bücher.example'));
    assert.ok(got, 'delivered');
    assert.match(got.raw, /^Subject: =\?UTF-8\?B\?/m);
    assert.match(got.raw, /^From: =\?UTF-8\?B\?Wm/m);
  });

  it('answers STARTTLS and then AUTH; from a non-loopback address AUTH is not offered in clear text, and refused (538 5.7.11)', async (t) => {
    const run = await swaks(['--server', server, '--tls', ...auth(), '--header', `From: ${FROM}`, '--to', 'tls@dest.example']);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /<~ +250 2\.0\.0 Ok: queued as/);

    // A second listener on this machine's own non-loopback address (the traffic stays inside the host).
    const ip = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!ip) return t.skip('no non-loopback IPv4 address on this machine');
    const other = await startSubmissionRig({ MAILROOM_SUBMISSION_HOST: ip, MAILROOM_SUBMISSION_TLS_CERT: CERT, MAILROOM_SUBMISSION_TLS_KEY: KEY });
    try {
      const target = `${ip}:${other.port}`;
      const token = other.s.serverToken;
      // In clear text from this address EHLO does not offer AUTH, and AUTH is refused before any check.
      const lines = await dialogue(other.port, ['EHLO client.test', `AUTH PLAIN ${plain(token)}`], ip);
      assert.doesNotMatch(lines[1], /AUTH/);
      assert.match(lines[1], /STARTTLS/);
      assert.match(lines[2], /^538 5\.7\.11 Encryption required/);
      let res = await swaks(['--server', target, '--auth', 'PLAIN', '--auth-user', token, '--auth-password', token, '--to', 'x@dest.example']);
      assert.notEqual(res.code, 0);
      res = await swaks(['--server', target, '--tls', '--auth', 'PLAIN', '--auth-user', token, '--auth-password', token, '--header', `From: ${FROM}`, '--to', 'y@dest.example']);
      assert.equal(res.code, 0, res.out);
    } finally {
      await other.close();
    }
  });

  it('answers on the implicit-TLS port (RFC 8314)', async () => {
    const { startSubmissionListener } = await import('../../src/smtp-listeners/submission-listener.js');
    const ctx = { ...r.s.ctx, config: { ...r.s.ctx.config, submission: { ...r.s.ctx.config.submission, port: null, tlsPort: 0 } } };
    const l = await startSubmissionListener(ctx);
    try {
      const run = await swaks(['--server', `127.0.0.1:${l.tlsPort}`, '--tls-on-connect', ...auth(), '--header', `From: ${FROM}`, '--to', 'implicit@dest.example']);
      assert.equal(run.code, 0, run.out);
    } finally {
      await l.stop();
    }
  });
});
