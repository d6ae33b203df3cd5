// tier: unit
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

describe('test helpers: loopback DNS and SMTP peers', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
  });
  after(async () => {
    await dns.close();
    await sink.close();
  });

  it('serves MX, TXT (long, split), A and CNAME records', async () => {
    const long = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`;
    dns.set('example.test', [{ type: 'MX', exchange: 'mx.example.test', priority: 10 }, { type: 'TXT', data: 'v=spf1 -all' }]);
    dns.set('sel._domainkey.example.test', [{ type: 'TXT', data: long }]);
    dns.set('mx.example.test', [{ type: 'A', address: '127.0.0.1' }]);
    dns.set('pm.example.test', [{ type: 'CNAME', domain: 'bounces.localhost' }]);
    const r = new Resolver();
    r.setServers([dns.address]);
    assert.deepEqual(await r.resolveMx('example.test'), [{ exchange: 'mx.example.test', priority: 10 }]);
    assert.deepEqual(await r.resolveTxt('example.test'), [['v=spf1 -all']]);
    assert.equal((await r.resolveTxt('sel._domainkey.example.test'))[0].join(''), long);
    assert.deepEqual(await r.resolve4('mx.example.test'), ['127.0.0.1']);
    assert.deepEqual(await r.resolveCname('pm.example.test'), ['bounces.localhost']);
    await assert.rejects(r.resolveTxt('missing.example.test'), /ENOTFOUND/);
  });

  it('the SMTP sink receives mail and answers per recipient', async () => {
    sink.rcptReplies.set('nobody@example.test', { code: 550, message: '5.1.1 No such user' });
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: sink.port, secure: false, ignoreTLS: true });
    const info = await t.sendMail({ from: 'a@example.test', to: ['b@example.test', 'nobody@example.test'], subject: 'hi', text: 'x' });
    assert.deepEqual(info.accepted, ['b@example.test']);
    assert.deepEqual(info.rejected, ['nobody@example.test']);
    assert.equal(sink.messages.length, 1);
    assert.match(sink.messages[0].raw, /Subject: hi/);
  });
});
