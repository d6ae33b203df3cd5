// tier: unit
// The delivery SMTP client (src/infra/smtp-client/client.ts) against a real smtp-server on loopback: pipelined and
// one-command-at-a-time transactions, dot-stuffing, per-command refusals, AUTH PLAIN and LOGIN, STARTTLS
// and implicit TLS, and a connection the server drops.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SmtpClient, type SmtpClientOptions, type SmtpError } from '../../../src/infra/smtp-client/client.js';
import { dotStuff } from '../../../src/infra/smtp-client/dot-stuff.js';

interface Got {
  secure: boolean;
  from: string;
  to: string[];
  raw: string;
}

const servers: SMTPServer[] = [];
after(() => servers.forEach((s) => s.close()));

async function server(options: Partial<SMTPServerOptions> = {}): Promise<{ port: number; got: Got[]; commands: string[] }> {
  const got: Got[] = [];
  const commands: string[] = [];
  const s = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 1024 * 1024,
    onConnect(_session, cb) {
      cb();
    },
    onRcptTo(addr, _session, cb) {
      commands.push(`RCPT ${addr.address}`);
      if (addr.address.startsWith('nobody@')) return cb(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      if (addr.address.startsWith('later@')) return cb(Object.assign(new Error('4.2.1 Try later'), { responseCode: 450 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        got.push({ secure: session.secure, from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
        cb(null, '2.0.0 Ok: queued');
      });
    },
    ...options,
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { port: (s.server.address() as { port: number }).port, got, commands };
}

const opts = (port: number, o: Partial<SmtpClientOptions> = {}): SmtpClientOptions => ({
  host: '127.0.0.1',
  port,
  secure: false,
  name: 'client.test',
  tls: { servername: 'localhost', rejectUnauthorized: false },
  opportunisticTls: true,
  connectTimeoutMs: 5000,
  socketTimeoutMs: 5000,
  ...o,
});

const message = Buffer.from('Subject: dots\r\n\r\n.starts with a dot\r\nmiddle\r\n..two dots\r\n.\r\nlast line without break');

describe('SMTP client', () => {
  it('dot-stuffs lines that start with "." and terminates the data (RFC 5321 4.5.2)', () => {
    assert.equal(dotStuff(Buffer.from('.a\r\nb\r\n.\r\n')).toString(), '..a\r\nb\r\n..\r\n.\r\n');
    assert.equal(dotStuff(Buffer.from('no break')).toString(), 'no break\r\n.\r\n');
    assert.equal(dotStuff(Buffer.from('')).toString(), '.\r\n');
    const plain = Buffer.from('x\r\ny\r\n');
    assert.equal(dotStuff(plain).toString(), 'x\r\ny\r\n.\r\n');
  });

  for (const pipelining of [true, false]) {
    it(`sends several transactions over one connection ${pipelining ? 'with' : 'without'} PIPELINING`, async () => {
      const srv = await server(pipelining ? {} : { hidePIPELINING: true });
      const c = await SmtpClient.connect(opts(srv.port));
      assert.equal(c.pipelining, pipelining);
      assert.match((await c.send('bounce+1@rp.example', 'a@dest.example', message)).text, /^250 /);
      // A refused recipient: the reply comes back, RSET clears the transaction, the session goes on.
      await assert.rejects(c.send('bounce+2@rp.example', 'nobody@dest.example', message), (e: SmtpError) => e.responseCode === 550 && /5\.1\.1/.test(e.response!));
      await c.reset();
      await assert.rejects(c.send('bounce+3@rp.example', 'later@dest.example', message), (e: SmtpError) => e.responseCode === 450);
      await c.reset();
      assert.ok(!c.broken);
      await c.send('bounce+4@rp.example', 'b@dest.example', message);
      c.quit();
      assert.deepEqual(srv.got.map((g) => [g.from, g.to]), [
        ['bounce+1@rp.example', ['a@dest.example']],
        ['bounce+4@rp.example', ['b@dest.example']],
      ]);
      // What arrived is the message as given, dots and all.
      assert.equal(srv.got[0].raw, `${message.toString()}\r\n`);
    });
  }

  it('authenticates with PLAIN or LOGIN, and reports refused credentials', async () => {
    for (const method of ['PLAIN', 'LOGIN']) {
      const srv = await server({
        disabledCommands: ['STARTTLS'],
        authOptional: false,
        allowInsecureAuth: true,
        authMethods: [method],
        onAuth(auth, _s, cb) {
          if (auth.username === 'user' && auth.password === 'pass wörd') return cb(null, { user: 'user' });
          cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
        },
      });
      const c = await SmtpClient.connect(opts(srv.port, { auth: { user: 'user', pass: 'pass wörd' } }));
      await c.send('a@x.example', 'b@dest.example', message);
      c.quit();
      await assert.rejects(SmtpClient.connect(opts(srv.port, { auth: { user: 'user', pass: 'wrong' } })), (e: SmtpError) => e.responseCode === 535);
    }
  });

  it('upgrades with STARTTLS when offered, and speaks implicit TLS', async () => {
    const starttls = await server({ disabledCommands: ['AUTH'] });
    const c = await SmtpClient.connect(opts(starttls.port));
    await c.send('a@x.example', 'b@dest.example', message);
    c.quit();
    assert.equal(starttls.got.length, 1);
    assert.equal(starttls.got[0].secure, true, 'the transaction ran over TLS');
    // A relay verifies the certificate: smtp-server's built-in one is self-signed, so this fails.
    await assert.rejects(SmtpClient.connect(opts(starttls.port, { opportunisticTls: false, tls: { servername: 'localhost', rejectUnauthorized: true } })));

    const implicit = await server({ secure: true, disabledCommands: ['AUTH'] });
    const t = await SmtpClient.connect(opts(implicit.port, { secure: true }));
    await t.send('a@x.example', 'b@dest.example', message);
    t.quit();
    assert.equal(implicit.got.length, 1);
    assert.equal(implicit.got[0].secure, true);
  });

  it('fails without a reply code when the server goes away', async () => {
    // A server that greets and then closes the connection after the first command.
    const raw = createServer((sock) => {
      sock.write('220 hello ESMTP\r\n');
      sock.once('data', () => sock.destroy());
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', () => r()));
    const port = (raw.address() as { port: number }).port;
    await assert.rejects(SmtpClient.connect(opts(port)), (e: SmtpError) => e.responseCode === undefined);
    raw.close();
    await assert.rejects(SmtpClient.connect(opts(port)), /ECONNREFUSED/);
  });
});
