// The console's Inbound pages in a real Chromium, with mail delivered over real SMTP to the inbound listener:
// a new message appears without a reload; hostile inbound content (script tags, event handlers, javascript:
// URLs, an encoded CRLF in the subject, right-to-left overrides in names, a hostile answer of the
// application's hook) is shown as text and nothing of it runs or loads; an admin bypasses a blocked message and
// the hook is posted again; a viewer has no buttons and is refused when trying anyway.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { sendInbound, startInbound, type InboundSetup } from '../../domain/inbound/inbound-helpers.js';
import { waitFor } from '../../helpers/wait.js';
import { launchBrowser, type Browser, signIn } from './browser.js';
import { ADMIN, addUsers, VIEWER } from './helpers.js';

const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;
const RLO = '\u202e';

describe('console: inbound in Chromium', () => {
  let t: InboundSetup;
  let browser: Browser;
  let page: Page;
  // Stands in for "the internet": any request to it means something hostile loaded or ran.
  let tracker: http.Server;
  const hits: string[] = [];
  let trackerUrl = '';
  // The application behind InboundHookUrl, answering with markup of its own (its answer is shown on the page).
  let hook: http.Server;
  const hookBodies: string[] = [];
  const dialogs: string[] = [];
  const made: Record<string, string> = {};

  before(async () => {
    t = await startInbound();
    await addUsers(t.s);
    tracker = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('x');
    });
    await new Promise<void>((r) => tracker.listen(0, '127.0.0.1', r));
    trackerUrl = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
    hook = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hookBodies.push(Buffer.concat(chunks).toString('utf8'));
        // The hostile sender's message gets a hostile answer; the others what an application would say.
        const evil = hookBodies[hookBodies.length - 1]!.includes('evil@customer.example');
        res.writeHead(200, { 'content-type': evil ? 'text/html' : 'application/json' });
        res.end(evil ? `<script>fetch('${trackerUrl}/hook-answer')</script><img src=x onerror="fetch('${trackerUrl}/hook-img')">${RLO}\r\nthanks` : '{"ticket":8812,"status":"created"}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const put = await t.s.request('PUT', '/server', { body: { InboundHookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/inbound` } });
    assert.equal(put.status, 200, put.text);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  after(async () => {
    await browser?.close();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
    await new Promise((r) => tracker.close(r));
    await t.close();
  });

  const at = (path: string) => `${t.s.url}/console/s/${t.s.serverId}${path}`;
  const idOf = (answer: { response: string }) => /as ([0-9a-f-]{36})/.exec(answer.response)![1]!;
  const posted = (subject: string) => hookBodies.filter((b) => (JSON.parse(b) as { Subject: string }).Subject === subject).length;
  /** At a desktop and a phone width: the page is no wider than the window (long addresses wrap); a screenshot. */
  const shot = async (name: string) => {
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    for (const [label, width] of [['wide', 1280], ['narrow', 390]] as const) {
      await page.setViewportSize({ width, height: 900 });
      const height = await page.evaluate<number>('document.documentElement.scrollHeight');
      await page.setViewportSize({ width, height: Math.max(900, height) });
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(wide <= width, `${name} is ${wide} px wide in a ${width} px window`);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}-${label}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('shows mail received over SMTP without a reload, and its page', async () => {
    await signIn(page, t.s.url, ADMIN);
    await page.getByRole('link', { name: 'Inbound', exact: true }).click();
    await page.waitForURL(/\/inbound$/);
    await page.locator('#live-state').waitFor();
    const answer = await sendInbound(t.s, {
      from: '"Jane Customer" <jane@customer.example>',
      to: `Support <${t.address.replace('@', '+ticket-8812@')}>`,
      subject: 'Re: Your order #1001 has shipped',
      text: 'Thanks! Could you change the delivery address to 12 Elm Street?\n\nOn Mon, 3 Jun 2024 at 10:00, Acme Shop <shop@acme.example> wrote:\n> Your order #1001 has shipped.\n> Track it at https://acme.example/t/1001',
      html: '<p>Thanks! Could you change the delivery address to <b>12 Elm Street</b>?</p><blockquote>Your order #1001 has shipped.</blockquote>',
      headers: { 'X-PM-Tag': 'support' },
      attachments: [{ filename: 'new-address.pdf', content: Buffer.alloc(48_213, 37), contentType: 'application/pdf' }],
    }, [t.address.replace('@', '+ticket-8812@')]);
    assert.ok(answer.ok, answer.response);
    made.normal = idOf(answer);
    const link = page.getByRole('link', { name: 'Re: Your order #1001 has shipped' });
    await link.waitFor({ timeout: 10_000 });
    await t.s.drain();
    await link.click();
    await page.waitForURL(new RegExp(made.normal));
    await page.locator('#hook-log').waitFor();
    assert.equal(await page.frameLocator('#html-preview').locator('b').textContent(), '12 Elm Street');
    assert.equal(await page.locator('#stripped-reply').textContent(), 'Thanks! Could you change the delivery address to 12 Elm Street?');
    await shot('inbound-message');
  });

  it('renders hostile inbound content inert: nothing runs, nothing loads, the CRLF and RTL override stay inside their value', async () => {
    // Raw bytes, so the test controls every field: an encoded-word subject hiding CRLF and a header line
    // (RFC 2047), names with a right-to-left override, a hostile header, body and attachment name.
    const b64 = (s: string) => `=?UTF-8?B?${Buffer.from(s).toString('base64')}?=`;
    const subject = `<script>fetch('${trackerUrl}/subject')</script><b>bold</b>\r\nX-Injected: yes`;
    const boundary = 'b-1';
    const raw = [
      `From: ${b64(`<img src=x onerror=fetch('${trackerUrl}/from')>${RLO}gnp.exe`)} <evil@customer.example>`,
      `To: ${t.address}`,
      `Subject: ${b64(subject)}`,
      `X-Evil: <script>fetch('${trackerUrl}/header')</script>`,
      `X-PM-Tag: "><img src=x onerror=fetch('${trackerUrl}/tag')>`,
      'Date: Tue, 4 Jun 2024 10:00:00 +0000',
      'Message-ID: <hostile-1@customer.example>',
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/html; charset=utf-8',
      '',
      `<p>Hi</p><script>fetch('${trackerUrl}/script')</script><img src=x onerror="fetch('${trackerUrl}/onerror')"><a id="js" href="javascript:fetch('${trackerUrl}/js')">click me</a><img src="${trackerUrl}/pixel.png" alt="remote"><meta http-equiv="refresh" content="0;url=${trackerUrl}/refresh">`,
      `--${boundary}`,
      `Content-Type: text/plain; name="${b64(`<img src=x onerror=alert(2)>${RLO}txt.exe`)}"`,
      `Content-Disposition: attachment; filename="${b64(`<img src=x onerror=alert(2)>${RLO}txt.exe`)}"`,
      '',
      'hello',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const answer = await sendInbound(t.s, { raw, envelope: { from: 'evil@customer.example', to: [t.address] } });
    assert.ok(answer.ok, answer.response);
    const id = idOf(answer);
    made.hostile = id;
    await t.s.drain();
    await waitFor(async () => (await t.s.drain(), hookBodies.length >= 2), { what: 'the hostile message at the hook', timeoutMs: 30_000 });

    await page.goto(at('/inbound'));
    await page.getByText(`<script>fetch('${trackerUrl}/subject')</script><b>bold</b>`, { exact: false }).first().waitFor();
    await page.goto(at(`/inbound/messages/${id}`));
    await page.frameLocator('#html-preview').locator('img[alt="remote"]').waitFor({ state: 'attached' });
    await page.waitForLoadState('load');
    // The javascript: link inside the sandboxed frame: clicking it runs nothing.
    await page.frameLocator('#html-preview').locator('#js').click();
    await page.waitForLoadState('load');
    assert.equal(await page.locator('b', { hasText: 'bold' }).count(), 0);
    assert.equal(await page.locator('img[src="x"]').count(), 0);
    const title = (await page.locator('h1').textContent())!;
    assert.ok(title.includes('X-Injected: yes'), 'the decoded CRLF stays inside the subject');
    assert.equal(await page.locator('table.headers th', { hasText: /^X-Injected$/ }).count(), 0, 'no header made of the subject');
    assert.ok((await page.locator('table.headers').textContent())!.includes(`<script>fetch('${trackerUrl}/header')</script>`));
    // The override is shown as a mark, not obeyed ("gnp.exe" does not pass for "exe.png"), and each value is
    // isolated in its own <bdi>: the address after it reads left to right.
    const from = page.locator('dl.summary dd').first();
    assert.equal(await from.locator('bdi').first().textContent(), `<img src=x onerror=fetch('${trackerUrl}/from')>[U+202E]gnp.exe`);
    assert.equal(await from.locator('bdi').nth(1).textContent(), 'evil@customer.example');
    assert.equal(await page.locator('ul.attachments bdi').textContent(), '<img src=x onerror=alert(2)>[U+202E]txt.exe');
    assert.ok(!(await page.content()).includes(RLO), 'no override character reaches the page');
    // The hook's own markup, as text.
    assert.ok((await page.locator('#hook-log pre.excerpt').textContent())!.includes(`<script>fetch('${trackerUrl}/hook-answer')</script>`));
    await shot('inbound-hostile');
    assert.equal(hits.length, 0, `nothing loaded or ran: ${hits.join(', ')}`);
    assert.deepEqual(dialogs, []);
    await page.getByRole('link', { name: 'Load remote images' }).click();
    await waitFor(() => hits.includes('/pixel.png'), { what: 'the remote image after asking' });
    assert.deepEqual([...new Set(hits)], ['/pixel.png'], 'only the image asked for loaded');
  });

  it('blocks by a rule added in the console, and an admin bypasses: the hook gets it', async () => {
    await page.goto(at('/inbound'));
    await page.getByRole('link', { name: 'Inbound rules' }).click();
    await page.getByLabel('Email address or domain').fill('deals.example');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('.notice', { hasText: "Rule 'deals.example' added" }).waitFor();
    const api = await t.s.request('GET', '/triggers/inboundrules?count=10&offset=0');
    assert.deepEqual(api.body.InboundRules.map((r: { Rule: string }) => r.Rule), ['deals.example']);
    await t.s.request('POST', '/triggers/inboundrules', { body: { Rule: 'spammer@bulk.example' } });
    await page.reload();
    await shot('inbound-rules');

    const answer = await sendInbound(t.s, { from: 'Deals <promo@deals.example>', to: t.address, subject: 'Limited offer', text: 'Buy now.' }, [t.address]);
    assert.ok(answer.ok, answer.response);
    const id = idOf(answer);
    await t.s.drain();
    await page.goto(at(`/inbound/messages/${id}`));
    assert.equal(await page.locator('#blocked-reason').textContent(), "Blocked by the inbound rule 'deals.example'.");
    await shot('inbound-blocked');
    assert.equal(posted('Limited offer'), 0);
    await page.getByRole('button', { name: 'Bypass and post it' }).click();
    await page.locator('.notice', { hasText: 'Successfully bypassed' }).waitFor();
    // Drained in the loop: the service's own runner may hold the job when a drain starts (seen once under load).
    await waitFor(async () => (await t.s.drain(), posted('Limited offer') === 1), { what: 'the bypassed message at the hook', timeoutMs: 30_000 });
    await page.reload();
    await page.locator('#hook-log').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Bypass and post it' }).count(), 0);
    made.blocked = id;
  });

  it('shows inbound counts in Statistics', async () => {
    await page.goto(at('/inbound'));
    // At 1280 px no status badge wraps ("Processed" stays one word on one line).
    await page.setViewportSize({ width: 1280, height: 900 });
    const lines = await page.locator('tbody .status').evaluateAll((els) => els.map((e) => e.getClientRects().length));
    assert.ok(lines.length > 0 && lines.every((n) => n === 1), JSON.stringify(lines));
    await shot('inbound');
    await page.goto(at('/stats'));
    await page.locator('#chart-inbound canvas').waitFor();
    const figures = await page.locator('#inbound-figures').textContent();
    assert.match(figures!, /3\s*Received/);
    await page.locator('#inbound').scrollIntoViewIfNeeded();
    await shot('stats-inbound');
  });

  it('gives a viewer no buttons, and refuses a viewer’s bypass, a rule change and a change without the CSRF token', async () => {
    const answer = await sendInbound(t.s, { from: 'Deals <promo2@deals.example>', to: t.address, subject: 'Second offer' }, [t.address]);
    const id = idOf(answer);
    await t.s.drain();
    const csrfless = await page.evaluate(async (url) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })).status, at(`/inbound/messages/${id}/bypass`));
    assert.equal(csrfless, 403);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, t.s.url, VIEWER);
    await page.goto(at(`/inbound/messages/${id}`));
    assert.equal(await page.getByRole('button', { name: 'Bypass and post it' }).count(), 0);
    await page.goto(at('/inbound/rules'));
    assert.equal(await page.getByRole('button', { name: /Remove|Add rule/ }).count(), 0);
    const post = (url: string, body: string) =>
      page.evaluate(async ([u, b]) => (await fetch(u!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(document.body.dataset.csrf!)}&${b}` })).status, [url, body]);
    assert.equal(await post(at(`/inbound/messages/${id}/bypass`), ''), 403);
    assert.equal(await post(at('/inbound/rules/add'), 'rule=x.example'), 403);
    assert.equal((await t.s.request('GET', `/messages/inbound/${id}/details`)).body.Status, 'Blocked');
    assert.equal((await t.s.request('GET', '/triggers/inboundrules?count=10&offset=0')).body.TotalCount, 2);
  });

  it('logged no console errors but the refusals provoked and what the hostile frame’s policy blocked', () => {
    const expected = (e: string) =>
      (e.includes(`/inbound/messages/${made.hostile}`) && /Content Security Policy|sandboxed|ERR_BLOCKED|Failed to load resource|javascript:/.test(e)) || /Failed to load resource: .*status of 403/.test(e);
    assert.deepEqual(browser.errors.filter((e) => !expected(e)), []);
    assert.ok(browser.errors.filter((e) => /status of 403/.test(e)).length >= 3);
  });
});
