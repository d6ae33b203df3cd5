// Console pages over real HTTP: values a sender controls come out as text (escaped in the HTML source,
// inert), message bodies carry their own script-free policy, and a sandbox server's messages show up as a
// capture inbox; keyset paging walks every message once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatStatus, statusReport } from '../../../src/domain/operations/status.js';
import { addConfirmedSender, addVerifiedDomain } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient } from './helpers.js';

const FROM = 'shop@acme.example';
const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'\``;

describe('console pages', () => {
  let s: TestService;
  let c: ConsoleClient;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    c = new ConsoleClient(s);
    await c.signIn(ADMIN);
  });
  after(async () => s.close());

  const send = async (body: Record<string, unknown>, token?: string) => {
    const r = await s.request('POST', '/email', { token, body: { From: FROM, To: 'jane@dest.example', TextBody: 'hi', ...body } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };

  it('shows what sending without a verified Return-Path costs, on the domain card and in mailroom status', async () => {
    await addVerifiedDomain(s, 'acme.example');
    const cost = /HEADER_FROM_DIFFERENT_DOMAINS[^<]*DKIM_VALID_EF[^<]*DMARC/;
    assert.match((await c.get('/console/senders')).text, /data-alignment>Return-Path not verified: mail goes out with the envelope domain/);
    assert.match((await c.get('/console/senders')).text, cost);
    assert.match(formatStatus(await statusReport(s.ctx)), /^Domains without a verified Return-Path: 1 \(acme\.example\)\n {2}mail goes out with the envelope domain .*HEADER_FROM_DIFFERENT_DOMAINS/m);
    await s.ctx.db.updateTable('domains').set({ return_path_domain: 'pm-bounces.acme.example', return_path_verified: 1 }).where('name', '=', 'acme.example').execute();
    assert.doesNotMatch((await c.get('/console/senders')).text, /data-alignment/);
    assert.match(formatStatus(await statusReport(s.ctx)), /^Domains without a verified Return-Path: \(none\)$/m);
  });

  it('renders every sender-controlled value as text, never markup', async () => {
    const id = await send({
      From: `"${HOSTILE.replace(/"/g, '')}" <${FROM}>`,
      Subject: HOSTILE,
      Tag: HOSTILE,
      HtmlBody: `<p>body</p><script>alert(3)</script>`,
      TextBody: HOSTILE,
      Metadata: { [`k<b>`]: HOSTILE.slice(0, 80) },
      Headers: [{ Name: 'X-Evil', Value: HOSTILE }],
      Attachments: [{ Name: `${HOSTILE.replace(/[`'"]/g, '')}.txt`, Content: 'aGk=', ContentType: 'text/plain' }],
    });
    await s.drain();
    for (const path of ['/activity', `/messages/${id}`, `/activity?tag=${encodeURIComponent(HOSTILE)}`]) {
      const page = await c.get(`/console/s/${s.serverId}${path}`);
      assert.equal(page.status, 200, path);
      assert.doesNotMatch(page.text, /<script>alert|<img src=x|onerror=alert\(2\)>|<b>/, path);
      assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, path);
      // The only scripts are the console's own files.
      for (const m of page.text.matchAll(/<script\b[^>]*>/g)) assert.match(m[0], /src="\/console\/assets\/[\w.]+\.js"|type="application\/json"/, path);
    }
    const body = await c.get(`/console/s/${s.serverId}/messages/${id}/body`);
    const csp = body.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /sandbox/);
    assert.doesNotMatch(csp, /script-src/); // falls back to default-src 'none': no script at all
    assert.match(csp, /img-src data:;/); // remote images blocked
    assert.match((await c.get(`/console/s/${s.serverId}/messages/${id}/body?images=1`)).headers.get('content-security-policy')!, /img-src data: https: http:/);
    assert.equal(body.headers.get('x-frame-options'), 'SAMEORIGIN');
  });

  it('cuts a large body on the message page and links to the whole as plain text', async () => {
    // 5 MB of text, every character escaped on the page before: the page grew to twice the message.
    const text = `${'<&> line of a very long report\n'.repeat(160_000)}THE END`;
    const id = await send({ To: 'huge@dest.example', Subject: 'Huge', TextBody: text });
    await s.drain();
    const page = await c.get(`/console/s/${s.serverId}/messages/${id}`);
    assert.equal(page.status, 200);
    assert.ok(page.text.length < 600_000, `the page is ${page.text.length} characters`);
    assert.doesNotMatch(page.text, /THE END/);
    assert.match(page.text, new RegExp(`Showing the first 65,536 of ${text.length.toLocaleString("en")} characters`));
    const whole = await c.get(`/console/s/${s.serverId}/messages/${id}/text`);
    assert.equal(whole.status, 200);
    assert.match(whole.headers.get('content-type')!, /^text\/plain/);
    assert.equal(whole.text, text);
    const raw = await c.get(`/console/s/${s.serverId}/messages/${id}/raw`);
    assert.match(raw.headers.get('content-type')!, /^text\/plain/);
    assert.match(raw.text, /^DKIM-Signature:|^From:|Subject: Huge/m);
    assert.ok(raw.text.length > 5_000_000, 'the whole source as sent');
    assert.match(page.text, new RegExp(`href="/console/s/${s.serverId}/messages/${id}/raw"`));
    // Another server's path shows nothing of it.
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Other for raw' } });
    assert.equal((await c.get(`/console/s/${other.body.ID}/messages/${id}/raw`)).status, 422);
  });

  it('shows a sandbox server’s messages as a capture inbox', async () => {
    const created = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Capture', DeliveryType: 'Sandbox' } });
    assert.equal(created.status, 200, created.text);
    const token = created.body.ApiTokens[0] as string;
    const id = await send({ Subject: 'Captured welcome', HtmlBody: '<h1>Welcome aboard</h1>' }, token);
    const list = await c.get(`/console/s/${created.body.ID}/activity`);
    assert.equal(list.status, 200);
    assert.match(list.text, /Captured welcome/);
    assert.match(list.text, /Captured, not sent/);
    assert.match(list.text, /sandbox/);
    const page = await c.get(`/console/s/${created.body.ID}/messages/${id}`);
    assert.match(page.text, /Captured, not sent/);
    assert.match((await c.get(`/console/s/${created.body.ID}/messages/${id}/body`)).text, /<h1>Welcome aboard<\/h1>/);
    // Not visible under another server's path.
    assert.equal((await c.get(`/console/s/${s.serverId}/messages/${id}`)).status, 422);
  });

  it('pages through every message once, newest first, by keyset', async () => {
    for (let i = 0; i < 120; i++) await send({ To: 'pager@dest.example', Subject: `Paged ${i}`, Tag: 'paged' });
    const seen: string[] = [];
    let next: string | null = `/console/s/${s.serverId}/activity?tag=paged`;
    while (next) {
      const page = await c.get(next);
      assert.equal(page.status, 200);
      seen.push(...[...page.text.matchAll(/>Paged (\d+)</g)].map((m) => m[1]!));
      next = /<a href="([^"]+)" rel="next">/.exec(page.text)?.[1]?.replace(/&amp;/g, '&') ?? null;
    }
    assert.deepEqual(seen, Array.from({ length: 120 }, (_, i) => String(119 - i)));
  });
});
