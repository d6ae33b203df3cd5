// Custom tracking domains (issue 26), end to end: the host set through PUT /domains/{id}, verified against a
// real loopback DNS server, then the open pixel, click links and List-Unsubscribe of mail delivered to the
// SMTP sink on https://<host>; the host itself answers only tracking, unsubscribe and health paths; the TLS
// terminator's question (GET /tls/ask) is answered from the verified hosts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { storeToken } from '../../../src/domain/tokens/tokens.js';
import { TRACKING_HOSTS_TTL_MS } from '../../../src/http/tracking-host.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const PUBLIC_HOST = 'mail.mailroom.test';
const HOST = 'links.brand.test';

describe('custom tracking domains', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let id = 0;
  const A = () => ({ accountToken: s.accountToken });
  const put = (body: unknown) => s.request('PUT', `/domains/${id}`, { ...A(), body });

  /** A request to the listener as a client of `host` would make it (the Host header is the only difference). */
  const onHost = (host: string, method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const u = new URL(s.url);
      const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers: { host, ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end();
    });

  /** Sends a tracked broadcast from brand.test and returns the delivered copy, parsed. */
  const sendTracked = async (to: string, from = 'news@brand.test', token = s.serverToken) => {
    const r = await s.request('POST', '/email', {
      token,
      body: {
        From: from,
        To: to,
        Subject: 'tracked',
        MessageStream: 'broadcast',
        TrackOpens: true,
        TrackLinks: 'HtmlAndText',
        HtmlBody: '<html><body><p>Read <a href="https://shop.example/sale?a=1">the sale</a></p></body></html>',
        TextBody: 'Read https://shop.example/sale?a=1',
      },
    });
    assert.equal(r.status, 200, r.text);
    await s.drain();
    const got = sink.messages.find((m) => m.to.includes(to));
    assert.ok(got, `delivered to ${to}`);
    const mail = await PostalMime.parse(got.raw);
    const unsubscribe = mail.headers.find((h) => h.key === 'list-unsubscribe')?.value ?? '';
    return { html: mail.html ?? '', text: mail.text ?? '', unsubscribe };
  };

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    s = await startService({
      env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_PUBLIC_URL: `https://${PUBLIC_HOST}`, MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` },
    });
    const d = (await s.request('POST', '/domains', { ...A(), body: { Name: 'brand.test' } })).body;
    id = d.ID;
    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: d.DKIMPendingTextValue }]);
    assert.equal((await s.request('PUT', `/domains/${id}/verifyDkim`, A())).body.DKIMVerified, true);
  });
  after(async () => {
    await s.close();
    await dns.close();
    await sink.close();
  });

  it('takes a host under the domain, shows it with its CNAME target, and refuses anything else', async () => {
    const fresh = (await s.request('GET', `/domains/${id}`, A())).body;
    assert.equal(fresh.CustomTrackingDomain, '');
    assert.equal(fresh.CustomTrackingVerified, false);
    assert.equal(fresh.CustomTrackingCNAMEValue, PUBLIC_HOST);

    for (const bad of ['brand.test', 'https://links.brand.test', 'links.brand.test:443', 'links.brand.test/t', 'links.other.test', 'a b.brand.test', 'x@brand.test', 'evilbrand.test']) {
      const r = await put({ CustomTrackingDomain: bad });
      assert.equal(r.status, 422, `${bad}: ${r.text}`);
      assert.equal(r.body.ErrorCode, 511);
      assert.match(r.body.Message, /CustomTrackingDomain/);
    }
    assert.equal((await put({ CustomTrackingDomain: 42 })).status, 422);
    // One name, one CNAME: the tracking host cannot also be the Return-Path host.
    assert.equal((await put({ CustomTrackingDomain: 'pm.brand.test', ReturnPathDomain: 'pm.brand.test' })).body.ErrorCode, 511);
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.ReturnPathDomain, '', 'a refused PUT changes nothing');

    const r = await put({ CustomTrackingDomain: ' Links.Brand.TEST. ' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.CustomTrackingDomain, HOST);
    assert.equal(r.body.CustomTrackingVerified, false);
    assert.equal(r.body.CustomTrackingCNAMEValue, PUBLIC_HOST);
    // A PUT without the field leaves it; the list items keep the hosted service's fields only.
    assert.equal((await put({ ReturnPathDomain: '' })).body.CustomTrackingDomain, HOST);
    const list = (await s.request('GET', '/domains?count=10&offset=0', A())).body;
    assert.deepEqual(Object.keys(list.Domains[0]).sort(), ['DKIMVerified', 'ID', 'Name', 'ReturnPathDomainVerified', 'SPFVerified', 'WeakDKIM']);
  });

  it('uses the public URL until the CNAME is verified, then the tracking host', async () => {
    const before = await sendTracked('before@dest.test');
    assert.match(before.html, new RegExp(`<img src="https://${PUBLIC_HOST}/t/o/`));
    assert.match(before.html, new RegExp(`href="https://${PUBLIC_HOST}/t/c/`));
    assert.match(before.text, new RegExp(`https://${PUBLIC_HOST}/t/c/`));
    assert.match(before.unsubscribe, new RegExp(`^<https://${PUBLIC_HOST}/unsubscribe/`));

    // No record, then a CNAME elsewhere: not verified.
    assert.equal((await s.request('PUT', `/domains/${id}/verifyCustomTracking`, A())).body.CustomTrackingVerified, false);
    dns.set(HOST, [{ type: 'CNAME', domain: 'elsewhere.test.' }]);
    const wrong = await s.request('PUT', `/domains/${id}/verifyCustomTracking`, A());
    assert.equal(wrong.status, 200, wrong.text);
    assert.equal(wrong.body.CustomTrackingVerified, false);
    assert.equal(wrong.body.Name, 'brand.test', 'answers the domain');

    dns.set(HOST, [{ type: 'CNAME', domain: `${PUBLIC_HOST}.` }]);
    const ok = (await s.request('PUT', `/domains/${id}/verifyCustomTracking`, A())).body;
    assert.equal(ok.CustomTrackingVerified, true);
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.CustomTrackingVerified, true);

    const after = await sendTracked('after@dest.test');
    assert.match(after.html, new RegExp(`<img src="https://${HOST}/t/o/`));
    assert.match(after.html, new RegExp(`href="https://${HOST}/t/c/`));
    assert.match(after.text, new RegExp(`https://${HOST}/t/c/`));
    assert.match(after.unsubscribe, new RegExp(`^<https://${HOST}/unsubscribe/`));
    assert.doesNotMatch(after.html + after.text + after.unsubscribe, new RegExp(PUBLIC_HOST));

    // On the tracking host (once the edge's set of hosts is reloaded): the click redirects and is recorded,
    // the pixel and the unsubscribe page answer, health too; the API and the console are not there.
    s.clock.advance(TRACKING_HOSTS_TTL_MS + 1);
    const click = /href="https:\/\/links\.brand\.test(\/t\/c\/[^"]+)"/.exec(after.html)![1];
    const redirect = await onHost(HOST, 'GET', click);
    assert.equal(redirect.status, 302, redirect.text);
    assert.equal(redirect.headers.location, 'https://shop.example/sale?a=1');
    const pixel = /src="https:\/\/links\.brand\.test(\/t\/o\/[^"]+)"/.exec(after.html)![1];
    assert.equal((await onHost(HOST, 'GET', pixel)).headers['content-type'], 'image/gif');
    const unsubscribe = after.unsubscribe.slice(`<https://${HOST}`.length, -1);
    assert.equal((await onHost(`${HOST}:443`, 'GET', unsubscribe, { accept: 'text/html' })).status, 200);
    assert.equal((await onHost(HOST, 'GET', '/healthz')).status, 200);
    const api = await onHost(HOST, 'GET', '/domains?count=10&offset=0', { 'x-service-account-token': s.accountToken });
    assert.equal(api.status, 404, api.text);
    assert.equal(JSON.parse(api.text).ErrorCode, 12);
    assert.equal((await onHost('LINKS.brand.test.', 'GET', '/Domains/', { 'x-service-account-token': s.accountToken })).status, 404);
    assert.equal((await onHost(HOST, 'POST', '/email', { 'x-service-server-token': s.serverToken })).status, 404);
    assert.equal((await onHost(HOST, 'GET', '/')).status, 404, 'no console');
    assert.equal((await onHost(HOST, 'GET', '/tls/ask?domain=links.brand.test')).status, 404);
    // The service's own host is untouched.
    assert.equal((await onHost(PUBLIC_HOST, 'GET', '/domains?count=10&offset=0', { 'x-service-account-token': s.accountToken })).status, 200);
    const clicks = await s.ctx.db.selectFrom('clicks').select('original_link').execute();
    assert.deepEqual(clicks.map((c) => c.original_link), ['https://shop.example/sale?a=1']);
  });

  it("serves on a tracking host only the links of its own domain's mail; the public host serves every message's", async () => {
    // A second account with its own verified domain and tracking host, sending through its own server.
    const other = await s.ctx.db.insertInto('accounts').values({ name: 'Rival', created_at: s.clock.now() }).returning('id').executeTakeFirstOrThrow();
    const rivalAccount = 'rival-account-token-000000000000001';
    await storeToken(s.ctx.db, { kind: 'account', accountId: other.id, serverId: null, value: rivalAccount, now: s.clock.now() });
    const R = { accountToken: rivalAccount };
    const rd = (await s.request('POST', '/domains', { ...R, body: { Name: 'rival.test' } })).body;
    dns.set(rd.DKIMPendingHost, [{ type: 'TXT', data: rd.DKIMPendingTextValue }]);
    assert.equal((await s.request('PUT', `/domains/${rd.ID}/verifyDkim`, R)).body.DKIMVerified, true);
    assert.equal((await s.request('PUT', `/domains/${rd.ID}`, { ...R, body: { CustomTrackingDomain: 'links.rival.test' } })).status, 200);
    dns.set('links.rival.test', [{ type: 'CNAME', domain: `${PUBLIC_HOST}.` }]);
    assert.equal((await s.request('PUT', `/domains/${rd.ID}/verifyCustomTracking`, R)).body.CustomTrackingVerified, true);
    const server = await s.request('POST', '/servers', { ...R, body: { Name: 'Rival mail', TrackOpens: true } });
    assert.equal(server.status, 200, server.text);
    // Mail of the first account from a domain without a tracking host: its links carry the public host.
    const plain = (await s.request('POST', '/domains', { ...A(), body: { Name: 'plain.test' } })).body;
    dns.set(plain.DKIMPendingHost, [{ type: 'TXT', data: plain.DKIMPendingTextValue }]);
    assert.equal((await s.request('PUT', `/domains/${plain.ID}/verifyDkim`, A())).body.DKIMVerified, true);
    s.clock.advance(TRACKING_HOSTS_TTL_MS + 1);

    const links = (mail: { html: string; unsubscribe: string }, host: string) => {
      const h = host.replace(/\./g, '\\.');
      return {
        click: new RegExp(`href="https://${h}(/t/c/[^"]+)"`).exec(mail.html)![1],
        pixel: new RegExp(`src="https://${h}(/t/o/[^"]+)"`).exec(mail.html)![1],
        unsubscribe: mail.unsubscribe.slice(`<https://${host}`.length, -1),
      };
    };
    const brand = links(await sendTracked('brand-reader@dest.test'), HOST);
    const rival = links(await sendTracked('rival-reader@dest.test', 'news@rival.test', server.body.ApiTokens[0]), 'links.rival.test');
    const plainMail = links(await sendTracked('plain-reader@dest.test', 'news@plain.test'), PUBLIC_HOST);

    const refused = async (host: string, l: { click: string; pixel: string; unsubscribe: string }) => {
      const click = await onHost(host, 'GET', l.click);
      assert.equal(click.status, 404, `${host}${l.click}: ${click.text}`);
      assert.equal(click.headers.location, undefined, 'no redirect');
      assert.equal((await onHost(host, 'GET', l.pixel)).status, 404);
      assert.equal((await onHost(host, 'GET', l.unsubscribe, { accept: 'text/html' })).status, 404);
      assert.equal((await onHost(host, 'POST', l.unsubscribe, { 'content-type': 'application/x-www-form-urlencoded' })).status, 404);
    };
    // The open redirect this closes: another account's click token on a customer's branded host.
    await refused(HOST, rival);
    await refused('LINKS.rival.test.', brand);
    await refused(HOST, plainMail);
    await refused('links.rival.test', plainMail);

    // Each host keeps serving its own mail.
    assert.equal((await onHost(HOST, 'GET', brand.click)).headers.location, 'https://shop.example/sale?a=1');
    assert.equal((await onHost('links.rival.test', 'GET', rival.click)).headers.location, 'https://shop.example/sale?a=1');
    assert.equal((await onHost('links.rival.test', 'GET', rival.pixel)).headers['content-type'], 'image/gif');
    // The public host serves every message's links, whichever host they were sent with.
    for (const l of [brand, rival, plainMail]) {
      const r = await onHost(PUBLIC_HOST, 'GET', l.click);
      assert.equal(r.status, 302, r.text);
      assert.equal(r.headers.location, 'https://shop.example/sale?a=1');
      assert.equal((await onHost(PUBLIC_HOST, 'GET', l.pixel)).headers['content-type'], 'image/gif');
      assert.equal((await onHost(PUBLIC_HOST, 'GET', l.unsubscribe, { accept: 'text/html' })).status, 200);
    }
    // Nothing was recorded or unsubscribed by the refused requests: the clicks are the five served above.
    const clicks = await s.ctx.db.selectFrom('clicks').select('recipient').execute();
    assert.deepEqual(clicks.map((c) => c.recipient).sort(), ['after@dest.test', 'brand-reader@dest.test', 'plain-reader@dest.test', 'rival-reader@dest.test']);
    assert.equal((await s.ctx.db.selectFrom('suppressions').select('email').execute()).length, 0);
  });

  it('answers the TLS terminator: 200 for a verified tracking host only', async () => {
    const ask = (q: string) => s.request('GET', `/tls/ask${q}`, { token: null });
    assert.equal((await ask(`?domain=${HOST}`)).status, 200);
    assert.equal((await ask(`?domain=LINKS.brand.test`)).status, 200);
    assert.equal((await ask('?domain=brand.test')).status, 404);
    assert.equal((await ask(`?domain=${PUBLIC_HOST}`)).status, 404);
    assert.equal((await ask('?domain=unknown.example')).status, 404);
    assert.equal((await ask('?domain=' + 'a'.repeat(400))).status, 404);
    assert.equal((await ask('')).status, 400);
  });

  it('turns the host off when the hourly re-check finds its CNAME gone', async () => {
    dns.remove(HOST);
    s.clock.advance(61 * 60_000);
    await s.ctx.scheduler.runAll();
    assert.equal((await s.request('GET', `/domains/${id}`, A())).body.CustomTrackingVerified, false);
    assert.equal((await s.request('GET', `/tls/ask?domain=${HOST}`, { token: null })).status, 404);
    dns.set(HOST, [{ type: 'CNAME', domain: `${PUBLIC_HOST}.` }]);
    assert.equal((await s.request('PUT', `/domains/${id}/verifyCustomTracking`, A())).body.CustomTrackingVerified, true);
  });

  it('un-verifies a changed host: the next mail and the TLS answer go back', async () => {
    const r = await put({ CustomTrackingDomain: 'go.brand.test' });
    assert.equal(r.body.CustomTrackingDomain, 'go.brand.test');
    assert.equal(r.body.CustomTrackingVerified, false);
    assert.equal((await s.request('GET', `/tls/ask?domain=${HOST}`, { token: null })).status, 404);
    const mail = await sendTracked('changed@dest.test');
    assert.match(mail.html, new RegExp(`<img src="https://${PUBLIC_HOST}/t/o/`));
    s.clock.advance(TRACKING_HOSTS_TTL_MS + 1);
    assert.equal((await onHost(HOST, 'GET', '/domains?count=10&offset=0', { 'x-service-account-token': s.accountToken })).status, 200);
    // '' clears it.
    const cleared = (await put({ CustomTrackingDomain: '' })).body;
    assert.equal(cleared.CustomTrackingDomain, '');
    assert.equal(cleared.CustomTrackingVerified, false);
  });
});
