// Submission AUTH and message headers under abuse, over real loopback SMTP: wrong tokens close the connection
// after a few tries and are limited per client address across listeners sharing the database, credentials
// naming two servers are refused, and a message with two From headers (RFC 5322 3.6) is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSubmissionListener } from '../../src/smtp-listeners/submission-listener.js';
import { FROM, smtpError, startSubmissionRig, type SubmissionRig } from './helpers.js';
import { authPlain, RawSmtp } from '../helpers/raw-smtp.js';

const WRONG = 'wrong-token-0000000000000000000000';

describe('SMTP submission under abuse', () => {
  let r: SubmissionRig;
  before(async () => {
    r = await startSubmissionRig({ MAILROOM_SUBMISSION_MAX_AUTH_FAILURES: '5' });
  });
  after(async () => {
    await r.close();
  });

  it('closes a connection at its third failed AUTH', async () => {
    const { c } = await RawSmtp.open(r.port, '127.0.0.2');
    assert.match(await c.cmd('EHLO app.example'), /^250/);
    assert.match(await c.cmd(authPlain(WRONG, WRONG)), /^535 5\.7\.8 Authentication failed/);
    assert.match(await c.cmd(authPlain(WRONG, WRONG)), /^535 5\.7\.8 Authentication failed/);
    assert.match(await c.cmd(authPlain(WRONG, WRONG)), /^421 4\.7\.0 3 failed authentications on this connection, closing it: Authentication failed/);
    await c.serverClosed();
  });

  it('refuses AUTH from an address with too many recent failures, in every listener sharing the database, until they age', async () => {
    const from = '127.0.0.3';
    for (let i = 0; i < 5; i++) {
      const { c } = await RawSmtp.open(r.port, from);
      assert.match(await c.cmd('EHLO app.example'), /^250/);
      assert.match(await c.cmd(authPlain(WRONG, WRONG)), /^535 /);
      c.close();
    }
    // Another process's listener (same database) refuses the right token from that address, unchecked.
    const other = await startSubmissionListener(r.s.ctx);
    try {
      const { c } = await RawSmtp.open(other.port!, from);
      assert.match(await c.cmd('EHLO app.example'), /^250/);
      assert.match(await c.cmd(authPlain(r.s.serverToken, r.s.serverToken)), /^421 4\.7\.0 Too many failed authentications from your address \(5 in 15 minutes\)/);
      await c.serverClosed();
      // Other addresses are not affected.
      const elsewhere = (await RawSmtp.open(other.port!, '127.0.0.4')).c;
      assert.match(await elsewhere.cmd('EHLO app.example'), /^250/);
      assert.match(await elsewhere.cmd(authPlain(r.s.serverToken, r.s.serverToken)), /^235 /);
      elsewhere.close();
    } finally {
      await other.stop();
    }
    r.s.clock.advance(15 * 60_000 + 1);
    const { c } = await RawSmtp.open(r.port, from);
    assert.match(await c.cmd('EHLO app.example'), /^250/);
    assert.match(await c.cmd(authPlain(r.s.serverToken, r.s.serverToken)), /^235 /);
    c.close();
  });

  it('counts wrong tokens tried side by side: a burst on many connections gets no more guesses than the limit', async () => {
    // Each AUTH read the count before any of the burst was written: 10 connections at once got 10 guesses
    // past a limit of 5.
    const from = '127.0.0.6';
    const conns = await Promise.all(Array.from({ length: 10 }, () => RawSmtp.open(r.port, from)));
    try {
      for (const { c } of conns) assert.match(await c.cmd('EHLO app.example'), /^250/);
      const replies = await Promise.all(conns.map(({ c }) => c.cmd(authPlain(WRONG, WRONG))));
      const checked = replies.filter((x) => x.startsWith('535 '));
      const refused = replies.filter((x) => x.startsWith('421 4.7.0 Too many failed authentications from your address'));
      assert.equal(checked.length, 5, replies.join('\n'));
      assert.equal(refused.length, 5, replies.join('\n'));
    } finally {
      for (const { c } of conns) c.close();
    }
  });

  it('lets a burst of right tokens from one address through, however many connections at once', async () => {
    const conns = await Promise.all(Array.from({ length: 30 }, () => RawSmtp.open(r.port, '127.0.0.7')));
    try {
      for (const { c } of conns) assert.match(await c.cmd('EHLO app.example'), /^250/);
      const replies = await Promise.all(conns.map(({ c }) => c.cmd(authPlain(r.s.serverToken, r.s.serverToken))));
      for (const x of replies) assert.match(x, /^235 /);
    } finally {
      for (const { c } of conns) c.close();
    }
  });

  it('refuses a user name and a password that are the tokens of two different servers', async () => {
    const created = await r.s.request('POST', '/servers', { accountToken: r.s.accountToken, body: { Name: 'Second', SmtpApiActivated: true } });
    assert.equal(created.status, 200, created.text);
    const second: string = created.body.ApiTokens[0];
    const { c } = await RawSmtp.open(r.port, '127.0.0.5');
    assert.match(await c.cmd('EHLO app.example'), /^250/);
    assert.match(await c.cmd(authPlain(r.s.serverToken, second)), /^535 5\.7\.8 The user name and the password are the tokens of two different servers/);
    assert.match(await c.cmd(authPlain(second, second)), /^235 /);
    c.close();
  });

  it('refuses a message with two From headers (550 5.6.0), and one with two Subject headers', async () => {
    const t = r.transport();
    const raw = (extra: string) => `From: ${FROM}\r\n${extra}To: a@dest.example\r\nSubject: Invoice\r\n\r\nHello\r\n`;
    await assert.rejects(t.sendMail({ envelope: { from: FROM, to: ['a@dest.example'] }, raw: raw('From: ceo@other.example\r\n') }), (err) => {
      const e = smtpError(err);
      assert.equal(e.code, 550, e.response);
      assert.match(e.response, /^550 5\.6\.0 The message has more than one 'From' header; RFC 5322 3\.6 allows at most one\./);
      return true;
    });
    await assert.rejects(t.sendMail({ envelope: { from: FROM, to: ['a@dest.example'] }, raw: raw('Subject: Refund\r\n') }), (err) => {
      assert.match(smtpError(err).response, /^550 5\.6\.0 The message has more than one 'Subject' header/);
      return true;
    });
    const list = await r.s.request('GET', '/messages?count=10&offset=0&recipient=a@dest.example');
    assert.equal(list.body.TotalCount, 0);
    // The same message with one From is accepted.
    const info = await t.sendMail({ envelope: { from: FROM, to: ['a@dest.example'] }, raw: raw('') });
    assert.match(info.response, /^250 2\.0\.0 Ok: queued as /);
  });
});
