// Connection slots of both SMTP listeners under abuse, over real loopback sockets: one address cannot take
// every slot, NOOP does not keep a connection alive, only progress does and only up to the session limit, and
// on submission a connection that does not authenticate is closed soon. Time is driven with the service's
// clock; the listeners check their connections every second, so each wait below is bounded by a deadline.
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { inboundSmtpPort } from '../../src/smtp-listeners/inbound-listener.js';
import { startSubmissionListener, type SubmissionListener } from '../../src/smtp-listeners/submission-listener.js';
import { startService, type TestService } from '../helpers/service.js';
import { waitFor, withDeadline } from '../helpers/wait.js';
import { CERT, KEY, startSubmissionRig, type SubmissionRig } from './helpers.js';
import { authPlain, RawSmtp } from '../helpers/raw-smtp.js';

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

  it('one address reconnecting as fast as it can does not fill the listener for another sender', async () => {
    // smtp-server greets (and calls onConnect) 100 ms after a connection opens: counted only from then, 200
    // reconnecting loops kept more than the listener's 50 connections not yet refused, and another sender met
    // "421 Too many connected clients" most of the time.
    let stop = false;
    let opened = 0;
    const loop = async () => {
      while (!stop) {
        await new Promise<void>((resolve) => {
          const c = tcpConnect({ port, host: '127.0.0.1', localAddress: '127.0.0.12' });
          opened++;
          c.on('error', () => resolve());
          c.on('close', () => resolve());
          c.on('data', () => c.destroy());
        });
      }
    };
    const loops = Array.from({ length: 200 }, loop);
    try {
      // A bound on the flood's start, not a rate: on a loaded machine 2,000 connections take longer.
      await waitFor(() => opened >= 2000, { what: 'the flood under way', timeoutMs: 60_000 });
      const greetings: string[] = [];
      for (let i = 0; i < 10; i++) {
        const o = await RawSmtp.open(port, '127.0.0.13');
        greetings.push(o.greeting);
        o.c.close();
      }
      for (const g of greetings) assert.match(g, /^220 /, greetings.join('\n'));
    } finally {
      stop = true;
      await Promise.all(loops);
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

describe('submission implicit-TLS port: connections still in their TLS handshake', () => {
  let r: SubmissionRig;
  let l: SubmissionListener;
  before(async () => {
    r = await startSubmissionRig({ MAILROOM_SUBMISSION_MAX_CLIENT_CONNECTIONS: '3', MAILROOM_SUBMISSION_TLS_CERT: CERT, MAILROOM_SUBMISSION_TLS_KEY: KEY });
    const submission = { ...r.s.ctx.config.submission, port: null, tlsPort: 0 };
    l = await startSubmissionListener({ ...r.s.ctx, config: { ...r.s.ctx.config, submission } });
  });
  after(async () => {
    await l.stop();
    await r.close();
  });

  /** A TCP connection that never starts its TLS handshake, and whether the server has closed it. */
  const silent = (from: string) =>
    new Promise<{ closed: () => boolean; destroy: () => void }>((resolve, reject) => {
      let closed = false;
      const socket = tcpConnect({ port: l.tlsPort!, host: '127.0.0.1', localAddress: from }, () => resolve({ closed: () => closed, destroy: () => socket.destroy() }));
      socket.on('error', () => {});
      socket.once('close', () => (closed = true));
      socket.once('error', reject);
    });

  /** A TLS session from `from`: its greeting ('' when the server closes the connection first), left open. */
  const session = (from: string) =>
    withDeadline(
      new Promise<{ greeting: string; close: () => void }>((resolve) => {
        let text = '';
        const socket = tlsConnect({ socket: tcpConnect({ port: l.tlsPort!, host: '127.0.0.1', localAddress: from }), rejectUnauthorized: false });
        const close = () => socket.destroy();
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => {
          text += d;
          if (text.includes('\r\n')) resolve({ greeting: text.trimEnd(), close });
        });
        socket.on('error', () => {});
        socket.once('close', () => resolve({ greeting: text.trimEnd(), close }));
      }),
      10_000,
      'a TLS greeting',
    );
  const greeting = async (from: string) => {
    const s = await session(from);
    s.close();
    return s.greeting;
  };

  it('one address opening 600 connections without a handshake holds 3 of them; another client still gets its session', async () => {
    // smtp-server waits up to 5 minutes for a handshake and keeps at most 500 such connections in all: one
    // address that holds them all would leave every other client of the port without a session.
    const held = await Promise.all(Array.from({ length: 600 }, () => silent('127.0.0.6')));
    try {
      await waitFor(() => held.filter((h) => !h.closed()).length === 3, { what: 'all but 3 of the silent connections closed' });
      assert.match(await greeting('127.0.0.7'), /^220 /);
      // The address itself has no slot left, for a handshake or a session.
      assert.doesNotMatch(await greeting('127.0.0.6'), /^220 /);
      assert.equal(held.filter((h) => !h.closed()).length, 3);
    } finally {
      for (const h of held) h.destroy();
    }
    // Once they are gone, the address is served again.
    await waitFor(async () => /^220 /.test(await greeting('127.0.0.6')), { what: 'a session for the address again' });
  });

  it('a session that began with a handshake is counted once', async () => {
    const open = [await session('127.0.0.8'), await session('127.0.0.8'), await session('127.0.0.8')];
    try {
      for (const o of open) assert.match(o.greeting, /^220 /);
      assert.doesNotMatch(await greeting('127.0.0.8'), /^220 /);
    } finally {
      for (const o of open) o.close();
    }
    await waitFor(async () => /^220 /.test(await greeting('127.0.0.8')), { what: 'a session for the address again' });
  });
});
