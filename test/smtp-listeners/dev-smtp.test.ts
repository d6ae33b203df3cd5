// The development SMTP listener (MAILROOM_DEV_SMTP_*): mail without AUTH, over real loopback SMTP
// (nodemailer), lands in the one Sandbox server it names, visible through GET /messages/outbound with that
// server's token, and is never delivered; the listener refuses to start for a Live server (the real CLI prints
// the variable) and on a non-loopback address without MAILROOM_DEV_SMTP_ALLOW_REMOTE.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DevServerRefused } from '../../src/domain/submission/dev-server.js';
import { startDevSmtpListener } from '../../src/smtp-listeners/dev-smtp-listener.js';
import type { SubmissionListener } from '../../src/smtp-listeners/submission-listener.js';
import { createTestDatabase } from '../helpers/database.js';
import { databaseUrlFor, runToEnd } from '../helpers/process.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { RawSmtp } from '../helpers/raw-smtp.js';

const FROM = 'app@shop.example';

describe('development SMTP listener', () => {
  let s: TestService;
  let sink: SmtpSink;
  let listener: SubmissionListener;
  let sandboxToken: string;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({
      env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DEV_SMTP_PORT: '0', MAILROOM_DEV_SMTP_SERVER: 'Dev inbox', MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS: '3' },
    });
    await addConfirmedSender(s, FROM);
    const created = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Dev inbox', DeliveryType: 'Sandbox' } });
    assert.equal(created.status, 200, created.text);
    sandboxToken = created.body.ApiTokens[0];
    listener = await startDevSmtpListener(s.ctx);
  });
  after(async () => {
    await listener.stop();
    await s.close();
    await sink.close();
  });

  const transport = (auth?: { user: string; pass: string }) => nodemailer.createTransport({ host: '127.0.0.1', port: listener.port!, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) });
  const outbound = async (token: string) => {
    const r = await s.request('GET', '/messages/outbound?count=50&offset=0', { token });
    assert.equal(r.status, 200, r.text);
    return r.body.Messages as Array<{ MessageID: string; Subject: string; Recipients: string[]; Sandboxed: boolean }>;
  };

  it('has the submission listener\'s connection slots: a share per client address, and no slot kept by NOOP', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => RawSmtp.open(listener.port!, '127.0.0.9')));
    try {
      assert.deepEqual(held.map((h) => h.greeting.slice(0, 4)).sort(), ['220 ', '220 ', '220 ', '421 ']);
      const other = await RawSmtp.open(listener.port!, '127.0.0.10');
      assert.match(other.greeting, /^220 /);
      other.c.close();
    } finally {
      for (const h of held) h.c.close();
    }
    // No AUTH is expected here, so no time limit to authenticate; the idle limit holds all the same.
    const { c } = await RawSmtp.open(listener.port!, '127.0.0.11');
    assert.match(await c.cmd('EHLO app.example'), /^250/);
    s.clock.advance(290_000);
    assert.match(await c.cmd('NOOP'), /^250/);
    s.clock.advance(11_000);
    assert.match(await c.reply(), /^421 4\.7\.0 No progress for 300 seconds/);
    await c.serverClosed();
  });

  it('takes mail without AUTH into the Sandbox server, visible with its token, delivered to no one', async () => {
    const t = transport();
    const info = await t.sendMail({ from: `Shop <${FROM}>`, to: 'jane@dest.example', subject: 'Welcome, Jane', text: 'Hello', headers: { 'X-PM-Tag': 'welcome' } });
    t.close();
    assert.match(info.response, /^250 2\.0\.0 Ok: queued as /);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1];
    const mine = await outbound(sandboxToken);
    const m = mine.find((x) => x.MessageID === id);
    assert.ok(m, 'in the Sandbox server');
    assert.equal(m.Subject, 'Welcome, Jane');
    assert.deepEqual(m.Recipients, ['jane@dest.example']);
    assert.equal(m.Sandboxed, true);
    assert.ok(!(await outbound(s.serverToken)).some((x) => x.MessageID === id), 'not in the Live server');
    await s.drain();
    assert.equal(sink.messages.length, 0, 'nothing is delivered');
  });

  it('accepts a client configured with credentials, whatever they are (as Mailpit with --smtp-auth-accept-any)', async () => {
    const t = transport({ user: 'anything', pass: 'at all' });
    const info = await t.sendMail({ from: FROM, to: 'carl@dest.example', subject: 'With credentials', text: 'Hi' });
    t.close();
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1];
    assert.ok((await outbound(sandboxToken)).some((x) => x.MessageID === id));
  });

  it('fires fake bounces for the bounce-testing domain, X-PM-Bounce-Type read over SMTP too', async () => {
    const t = transport();
    const info = await t.sendMail({
      from: FROM,
      to: ['someone@bounce-testing.postmarkapp.com', 'HardBounce+dev@bounce-testing.postmarkapp.com'],
      subject: 'Bounce',
      text: 'x',
    });
    const typed = await t.sendMail({ from: FROM, to: 'someone@bounce-testing.postmarkapp.com', subject: 'Typed', text: 'x', headers: { 'X-PM-Bounce-Type': 'SoftBounce' } });
    t.close();
    await s.drain();
    const bounces = async (response: string) => {
      const id = /queued as ([0-9a-f-]{36})/.exec(response)![1];
      const r = await s.request('GET', `/bounces?count=10&offset=0&messageID=${id}`, { token: sandboxToken });
      return (r.body.Bounces as Array<{ Email: string; Type: string }>).map((b) => [b.Email, b.Type]).sort();
    };
    assert.deepEqual(await bounces(info.response), [
      ['hardbounce+dev@bounce-testing.postmarkapp.com', 'HardBounce'],
      ['someone@bounce-testing.postmarkapp.com', 'HardBounce'],
    ]);
    assert.deepEqual(await bounces(typed.response), [['someone@bounce-testing.postmarkapp.com', 'SoftBounce']]);
    assert.equal(sink.messages.length, 0, 'nothing is delivered');
  });

  it('takes any From, as Mailpit\'s port does (a Sandbox server sends nothing), and refuses the API refusals in SMTP terms', async () => {
    const t = transport();
    const info = await t.sendMail({ from: 'stranger@else.example', to: 'jane@dest.example', subject: 'From a stranger', text: 'y' });
    assert.match(info.response, /^250 2\.0\.0 Ok: queued as /);
    assert.ok((await outbound(sandboxToken)).some((m) => m.Subject === 'From a stranger'));
    // A stream the server does not have is refused, as POST /email refuses it.
    await assert.rejects(t.sendMail({ from: 'stranger@else.example', to: 'jane@dest.example', subject: 'x', text: 'y', headers: { 'X-PM-Message-Stream': 'no-such-stream' } }), (err: { responseCode?: number }) => {
      assert.ok(err.responseCode! >= 500 && err.responseCode! < 600, String(err.responseCode));
      return true;
    });
    t.close();
    // The Live server keeps the sender-signature rule: POST /email from the stranger is refused there.
    const live = await s.request('POST', '/email', { body: { From: 'stranger@else.example', To: 'jane@dest.example', Subject: 'x', TextBody: 'y' } });
    assert.equal(live.body.ErrorCode, 400, live.text);
  });

  it('refuses to start for a Live server or an unknown one, naming MAILROOM_DEV_SMTP_SERVER', async () => {
    for (const [name, why] of [['Default', /is a Live server/], ['No such server', /no server named/]] as const) {
      const ctx = { ...s.ctx, config: { ...s.ctx.config, devSmtp: { ...s.ctx.config.devSmtp!, server: name } } };
      await assert.rejects(startDevSmtpListener(ctx), (err: unknown) => {
        assert.ok(err instanceof DevServerRefused);
        assert.equal(err.variable, 'MAILROOM_DEV_SMTP_SERVER');
        assert.match(err.message, why);
        return true;
      });
    }
    // By ID works as by name.
    const byId = { ...s.ctx, config: { ...s.ctx.config, devSmtp: { ...s.ctx.config.devSmtp!, server: String(s.serverId) } } };
    await assert.rejects(startDevSmtpListener(byId), /is a Live server/);
  });
});

describe('development SMTP listener settings', () => {
  it('refuses a non-loopback host without MAILROOM_DEV_SMTP_ALLOW_REMOTE, and a port without a server', () => {
    const base = { MAILROOM_DEV_SMTP_PORT: '1025', MAILROOM_DEV_SMTP_SERVER: 'Dev inbox' };
    assert.deepEqual(loadConfig(base).devSmtp, { host: '127.0.0.1', port: 1025, server: 'Dev inbox', allowRemote: false });
    assert.equal(loadConfig({ ...base, MAILROOM_DEV_SMTP_HOST: '::1' }).devSmtp?.host, '::1');
    assert.throws(() => loadConfig({ ...base, MAILROOM_DEV_SMTP_HOST: '0.0.0.0' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, 'MAILROOM_DEV_SMTP_HOST');
      assert.match(err.message, /not a loopback address.*MAILROOM_DEV_SMTP_ALLOW_REMOTE=true/);
      return true;
    });
    assert.equal(loadConfig({ ...base, MAILROOM_DEV_SMTP_HOST: '0.0.0.0', MAILROOM_DEV_SMTP_ALLOW_REMOTE: 'true' }).devSmtp?.host, '0.0.0.0');
    assert.throws(() => loadConfig({ MAILROOM_DEV_SMTP_PORT: '1025' }), (err: unknown) => err instanceof ConfigError && err.variable === 'MAILROOM_DEV_SMTP_SERVER');
    assert.equal(loadConfig({}).devSmtp, null, 'off by default');
  });

  it('`mailroom serve` naming a Live server stops at start with the variable in its message', async () => {
    const tdb = await createTestDatabase();
    try {
      const r = await runToEnd(['serve'], {
        MAILROOM_DATABASE_URL: databaseUrlFor(tdb),
        MAILROOM_PORT: '0',
        MAILROOM_INBOUND_SMTP_PORT: '0',
        MAILROOM_SUBMISSION_PORT: 'off',
        MAILROOM_DEV_SMTP_PORT: '0',
        MAILROOM_DEV_SMTP_SERVER: 'Default',
        MAILROOM_LOG_LEVEL: 'silent',
      });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /configuration error: MAILROOM_DEV_SMTP_SERVER: server "Default" \(ID \d+\) is a Live server/);
    } finally {
      await tdb.drop();
    }
  });
});
