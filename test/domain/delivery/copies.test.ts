// Per-recipient copies: with open/link tracking each recipient gets its own tracking tokens, and on a
// Broadcasts stream its own List-Unsubscribe headers, covered by the DKIM signature (RFC 8058 4).
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import PostalMime from 'postal-mime';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { addConfirmedSender, addVerifiedDomain } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { send } from './helpers.js';

describe('per-recipient copies', () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let verify: (raw: string) => Promise<string>;
  let resolver: Resolver;
  before(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, 'news@example.com');
    const key = await addVerifiedDomain(s, 'example.com', 'mr1');
    dns.set('mr1._domainkey.example.com', [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${key.publicKeyBase64}` }]);
    resolver = new Resolver();
    resolver.setServers([dns.address]);
    verify = async (raw) => (await dkimVerify(Buffer.from(raw), { resolver: (n: string, rr: string) => resolver.resolve(n, rr as 'TXT') })).results[0].status.result;
  });
  after(async () => {
    await s.close();
    await sink.close();
    await dns.close();
  });

  it('gives each recipient its own tracked copy, each signed', async () => {
    await send(s, {
      From: 'news@example.com',
      To: 'a@dest.example, b@dest.example',
      Subject: 'tracked',
      HtmlBody: '<p>Read <a href="https://shop.example/sale">the sale</a></p>',
      TrackOpens: true,
      TrackLinks: 'HtmlOnly',
    });
    const before = sink.messages.length;
    await s.drain();
    const got = sink.messages.slice(before);
    assert.equal(got.length, 2);
    const htmls = await Promise.all(got.map(async (m) => (await PostalMime.parse(m.raw)).html ?? ''));
    assert.notEqual(htmls[0], htmls[1], 'different tracking tokens');
    for (const h of htmls) assert.ok(!h.includes('href="https://shop.example/sale"'), 'link rewritten');
    for (const m of got) assert.equal(await verify(m.raw), 'pass');
  });

  it('adds signed one-click List-Unsubscribe headers on a Broadcasts stream', async () => {
    await send(s, { From: 'news@example.com', To: 'c@dest.example, d@dest.example', Subject: 'news', HtmlBody: '<p>News</p>', MessageStream: 'broadcast' });
    const before = sink.messages.length;
    await s.drain();
    const got = sink.messages.slice(before);
    assert.equal(got.length, 2);
    const links = new Set<string>();
    for (const m of got) {
      const p = await PostalMime.parse(m.raw);
      const lu = p.headers.find((h) => h.key === 'list-unsubscribe')?.value ?? '';
      assert.match(lu, /^<https?:\/\/.+>$/);
      links.add(lu);
      assert.equal(p.headers.find((h) => h.key === 'list-unsubscribe-post')?.value, 'List-Unsubscribe=One-Click');
      assert.match(m.raw.replace(/\r\n\s+/g, ''), /h=[^;]*List-Unsubscribe:List-Unsubscribe-Post/i);
      // RFC 2919 List-Id under the From domain and Gmail's Feedback-ID, both signed.
      assert.match(p.headers.find((h) => h.key === 'list-id')?.value ?? '', /^<broadcast\.\d+\.example\.com>$/);
      assert.match(p.headers.find((h) => h.key === 'feedback-id')?.value ?? '', /^broadcast:\d+:\d+:[a-z0-9.-]+$/);
      assert.match(m.raw.replace(/\r\n\s+/g, ''), /h=[^;]*List-Id[^;]*Feedback-ID/i);
      assert.equal(await verify(m.raw), 'pass');
    }
    assert.equal(links.size, 2, 'one link per recipient');
  });

  it('writes Message-ID at the verified custom Return-Path domain, else at the service domain', async () => {
    await send(s, { From: 'news@example.com', To: 'g@dest.example', Subject: 'default', TextBody: 'x' });
    await s.drain();
    const plain = await PostalMime.parse(sink.messages.at(-1)!.raw);
    assert.match(plain.messageId ?? '', new RegExp(`@${s.ctx.config.returnPathDomain.replace(/\./g, '\\.')}>$`));
    await s.ctx.db.updateTable('domains').set({ return_path_domain: 'pm-bounces.example.com', return_path_verified: 1 }).where('name', '=', 'example.com').execute();
    try {
      await send(s, { From: 'news@example.com', To: 'h@dest.example', Subject: 'own', TextBody: 'x' });
      await s.drain();
      const m = sink.messages.at(-1)!;
      assert.match((await PostalMime.parse(m.raw)).messageId ?? '', /^<[0-9a-f-]+@pm-bounces\.example\.com>$/);
      assert.match(m.from, /@pm-bounces\.example\.com$/, 'the envelope domain it names');
      // Signed for From (d=example.com) and, by the same key, for the envelope domain (i=@pm-bounces...).
      const results = (await dkimVerify(Buffer.from(m.raw), { resolver: (n: string, rr: string) => resolver.resolve(n, rr as 'TXT') })).results;
      assert.deepEqual(results.map((r: { status: { result: string } }) => r.status.result), ['pass', 'pass']);
      assert.match(m.raw.replace(/\r\n\s+/g, ''), /DKIM-Signature:[^\n]*i=@pm-bounces\.example\.com;/);
    } finally {
      await s.ctx.db.updateTable('domains').set({ return_path_verified: 0 }).where('name', '=', 'example.com').execute();
    }
  });

  it('counts the tracked links of each delivered copy in TotalTrackedLinksSent', async () => {
    sink.rcptReplies.set('refused@dest.example', { code: 550, message: '5.1.1 No such user' });
    const before = (await s.request('GET', '/stats/outbound?tag=links')).body.TotalTrackedLinksSent as number;
    assert.equal(before, 0);
    await send(s, {
      From: 'news@example.com',
      To: 'e@dest.example, f@dest.example, refused@dest.example',
      Subject: 'links',
      Tag: 'links',
      // Two trackable links in the HTML, one in the text; mailto: and unsubscribe links are left alone.
      HtmlBody: '<a href="https://shop.example/1">1</a> <a href="https://shop.example/2">2</a> <a href="mailto:x@y.example">m</a>',
      TextBody: 'See https://shop.example/3 or https://shop.example/unsubscribe',
      TrackLinks: 'HtmlAndText',
    });
    await s.drain();
    const r = await s.request('GET', '/stats/outbound?tag=links');
    assert.equal(r.status, 200, r.text);
    // Three per delivered copy; the refused recipient's copy was never sent.
    assert.equal(r.body.TotalTrackedLinksSent, 6);
    assert.equal(r.body.WithLinkTracking, 1);
  });
});
