// Connection slots of both SMTP listeners under abuse, over real loopback sockets: one address cannot take
// every slot, NOOP does not keep a connection alive, only progress does and only up to the session limit, and
// on submission a connection that does not authenticate is closed soon. Time is driven with the service's
// clock; the listeners check their connections every second, so each wait below is bounded by a deadline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inboundSmtpPort } from '../../src/smtp-listeners/inbound-listener.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSubmissionRig, type SubmissionRig } from './helpers.js';
import { authPlain, RawSmtp } from './raw-smtp.js';

/** Opens `n` connections from `from` at once, returning each with its greeting. */
const openMany = (port: number, n: number, from: string) => Promise.all(Array.from({ length: n }, () => RawSmtp.open(port, from)));

describe('inbound SMTP listener: connection slots', () => {
  let s: TestService;
  let port: number;
  before(async () => {
    s = await startService();
    port = inboundSmtpPort(s.ctx)!;
  });
  after(async () => {
    await s.close();
  });

  it('one address holding 50 idle connections gets 10 of them; another sender is still greeted', async () => {
    const held = await openMany(port, 50, '127.0.0.1');
    try {
      const greeted = held.filter((h) => h.greeting.startsWith('220 '));
      assert.equal(greeted.length, 10);
      for (const h of held.filter((x) => !x.greeting.startsWith('220 '))) assert.match(h.greeting, /^421 4\.7\.0 Too many connections from your address \(at most 10 at once\)/);
      const other = await RawSmtp.open(port, '127.0.0.2');
      assert.match(other.greeting, /^220 /);
      assert.match(await other.c.cmd('EHLO other.example'), /^250/);
      other.c.close();
    } finally {
      for (const h of held) h.c.close();
    }
  });

  it('NOOP does not hold a connection: without progress it is closed after the idle limit', async () => {
    const { c } = await RawSmtp.open(port, '127.0.0.3');
    assert.match(await c.cmd('EHLO mta.example'), /^250/);
    s.clock.advance(110_000);
    assert.match(await c.cmd('NOOP'), /^250/);
    assert.match(await c.cmd('RSET'), /^250/);
    s.clock.advance(11_000);
    assert.match(await c.reply(), /^421 4\.7\.0 No progress for 120 seconds \(NOOP, RSET and HELP do not count\)/);
    await c.serverClosed();
  });

  it('an accepted MAIL is progress, but the session limit closes the connection all the same', async () => {
    const { c } = await RawSmtp.open(port, '127.0.0.4');
    assert.match(await c.cmd('EHLO mta.example'), /^250/);
    for (let t = 0; t < 550_000; t += 110_000) {
      assert.match(await c.cmd('MAIL FROM:<>'), /^250/);
      assert.match(await c.cmd('RSET'), /^250/);
      s.clock.advance(110_000);
    }
    // 550 s since the connection opened, 110 s since the last MAIL: still open.
    assert.match(await c.cmd('MAIL FROM:<>'), /^250/);
    s.clock.advance(60_000);
    assert.match(await c.reply(), /^421 4\.7\.0 Session limit of 600 seconds reached/);
    await c.serverClosed();
  });
});

describe('submission SMTP listener: connection slots', () => {
  let r: SubmissionRig;
  before(async () => {
    r = await startSubmissionRig({ MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS: '3' });
  });
  after(async () => {
    await r.close();
  });

  it('a client address gets at most its share of connections', async () => {
    const held = await openMany(r.port, 4, '127.0.0.1');
    try {
      assert.deepEqual(held.map((h) => h.greeting.slice(0, 4)).sort(), ['220 ', '220 ', '220 ', '421 ']);
      assert.match(held.find((h) => h.greeting.startsWith('421'))!.greeting, /^421 4\.7\.0 Too many connections from your address \(at most 3 at once\)/);
      const other = await RawSmtp.open(r.port, '127.0.0.2');
      assert.match(other.greeting, /^220 /);
      other.c.close();
    } finally {
      for (const h of held) h.c.close();
    }
  });

  it('a connection that does not authenticate within 30 s is closed; an authenticated one stays', async () => {
    const idle = (await RawSmtp.open(r.port, '127.0.0.5')).c;
    const authed = (await RawSmtp.open(r.port, '127.0.0.5')).c;
    assert.match(await idle.cmd('EHLO app.example'), /^250/);
    assert.match(await authed.cmd('EHLO app.example'), /^250/);
    assert.match(await authed.cmd(authPlain(r.s.serverToken, r.s.serverToken)), /^235 /);
    assert.match(await authed.cmd('MAIL FROM:<app@shop.example>'), /^250/);
    r.s.clock.advance(31_000);
    assert.match(await idle.reply(), /^421 4\.7\.0 Not authenticated within 30 seconds/);
    await idle.serverClosed();
    assert.match(await authed.cmd('RSET'), /^250/);
    assert.ok(authed.isOpen);
    authed.close();
  });
});
