// The console in a real Chromium (Debian's, through playwright-core), against a whole service on loopback
// with a real SMTP sink as the relay and a real webhook target.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { launchBrowser, type Browser } from './browser.js';
import { ADMIN, addUsers, VIEWER } from './helpers.js';

const FROM = 'shop@acme.example';
const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;

describe('console in Chromium', () => {
  let s: TestService;
  let sink: SmtpSink;
  let hooks: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  // A loopback server standing in for "the internet": any request to it means something loaded or ran.
  let tracker: http.Server;
  const hits: string[] = [];
  let trackerUrl = '';

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    hooks = await startWebhookReceiver();
    tracker = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('x');
    });
    await new Promise<void>((r) => tracker.listen(0, '127.0.0.1', r));
    trackerUrl = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await new Promise((r) => tracker.close(r));
    await hooks.close();
    await s.close();
    await sink.close();
  });

  const at = (path: string) => `${s.url}/console/s/${s.serverId}${path}`;
  const shot = async (name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    for (const [label, width] of [['wide', 1280], ['narrow', 390]] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${SHOTS}/${name}-${label}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };
  const send = async (body: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { body: { From: FROM, To: 'jane@dest.example', ...body } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const signIn = async (user: { email: string; password: string }) => {
    await page.goto(`${s.url}/login`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('refuses a wrong password, signs in, and signs out', async () => {
    await page.goto(s.url + '/');
    assert.match(page.url(), /\/login/);
    await signIn({ email: ADMIN.email, password: 'wrong password here' });
    assert.equal(await page.locator('#login-error').textContent(), 'Wrong email or password.');
    await shot('login');
    await signIn(ADMIN);
    await page.waitForURL(/\/activity$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(at('/activity'));
    assert.match(page.url(), /\/login/);
    await signIn(ADMIN);
    await page.waitForURL(/\/activity/);
  });

  it('shows a message sent through the API in Activity without a reload, and its page with the delivery', async () => {
    await page.goto(at('/activity'));
    const id = await send({ Subject: 'Your order #1001', HtmlBody: '<h1 style="color:#2563eb">Thanks, Jane!</h1><p>Your order ships today.</p>', TextBody: 'Thanks, Jane!', Tag: 'receipt', Metadata: { order: '1001' } });
    const link = page.getByRole('link', { name: 'Your order #1001' });
    await link.waitFor({ timeout: 10_000 });
    await s.drain();
    await link.click();
    await page.waitForURL(new RegExp(id));
    const frame = page.frameLocator('#html-preview');
    assert.equal(await frame.locator('h1').textContent(), 'Thanks, Jane!');
    const delivered = page.locator('li.event-delivered');
    await delivered.waitFor();
    assert.equal(sink.messages.length, 1);
    assert.match((await delivered.textContent())!, /smtp;250/);
    await shot('message');
    await page.goto(at('/activity'));
    await shot('activity');
  });

  it('renders a hostile message inert: no script runs, no remote image loads until asked', async () => {
    const evil = `<img src=x onerror="fetch('${trackerUrl}/onerror')"><script>fetch('${trackerUrl}/script')</script><img src="${trackerUrl}/pixel.png" alt="remote">`;
    const id = await send({ Subject: `<script>fetch('${trackerUrl}/subject')</script><b>bold</b>`, HtmlBody: evil, Tag: '"><img src=x onerror=alert(1)>', Metadata: { k: '<svg onload=alert(1)>' }, Attachments: [{ Name: '<img src=x onerror=alert(2)>.txt', Content: 'aGk=', ContentType: 'text/plain' }] });
    await page.goto(at('/activity'));
    await page.getByText(`<script>fetch('${trackerUrl}/subject')</script><b>bold</b>`).first().waitFor();
    await page.goto(at(`/messages/${id}`));
    await page.frameLocator('#html-preview').locator('img[alt="remote"]').waitFor({ state: 'attached' });
    await page.waitForLoadState('load');
    assert.equal(hits.length, 0, hits.join(", "));
    assert.equal(await page.locator('b', { hasText: 'bold' }).count(), 0);
    assert.ok((await page.locator('ul.attachments').textContent())!.includes('<img src=x onerror=alert(2)>.txt'));
    await page.getByRole('link', { name: 'Load remote images' }).click();
    await waitFor(() => hits.includes('/pixel.png'), { what: 'the remote image after asking' });
    assert.ok(!hits.includes('/script') && !hits.includes('/onerror') && !hits.includes('/subject'), hits.join(','));
  });

  it('activates a bounce', async () => {
    const id = await send({ To: 'gone@dest.example', TextBody: 'hello', Subject: 'Bounced one' });
    const rcpt = await s.ctx.db.selectFrom('message_recipients').select('id').where('message_id', '=', id).executeTakeFirstOrThrow();
    await s.ctx.db.transaction().execute((trx) => recordBounce(trx, s.ctx, { messageId: id, email: 'gone@dest.example', type: 'HardBounce', details: 'smtp;550 5.1.1 no such user', bouncedAt: s.clock.now(), dump: 'raw', recipientId: rcpt.id }));
    await page.goto(at('/bounces'));
    await shot('bounces');
    await page.getByRole('button', { name: 'Activate gone@dest.example' }).click();
    await page.locator('.notice').waitFor();
    const sup = await s.ctx.db.selectFrom('suppressions').select('email').where('email', '=', 'gone@dest.example').executeTakeFirst();
    assert.equal(sup, undefined);
  });

  it('adds and removes a suppression', async () => {
    await page.goto(at('/suppressions'));
    await page.getByLabel(/Suppress addresses/).fill('blocked@dest.example');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByRole('cell', { name: 'blocked@dest.example', exact: true }).waitFor();
    await shot('suppressions');
    await page.getByRole('button', { name: 'Remove blocked@dest.example' }).click();
    await page.locator('.notice').waitFor();
    assert.equal(await page.getByRole('cell', { name: 'blocked@dest.example', exact: true }).count(), 0);
  });

  it('edits a template and previews it live with the server renderer', async () => {
    const t = await s.request('POST', '/templates', { body: { Name: 'Welcome', Alias: 'welcome', Subject: 'Hi {{name}}', HtmlBody: '<p>Hello {{name}}</p>', TextBody: 'Hello {{name}}' } });
    assert.equal(t.status, 200, t.text);
    await page.goto(at(`/templates/${t.body.TemplateId}`));
    await page.getByLabel('Test model (JSON)').fill('{"name": "Ada", "product": "Widget"}');
    await page.getByLabel('HTML body').fill('<h2>Welcome {{name}}</h2><p>Your {{product}} is ready</p>');
    const frame = page.frameLocator('#template-preview');
    await frame.locator('h2', { hasText: 'Welcome Ada' }).waitFor();
    await page.getByLabel('HTML body').fill('<h2>Welcome {{#broken}</h2>');
    await page.locator('#errors-HtmlBody li').first().waitFor();
    await shot('template');
    await page.getByLabel('HTML body').fill('<h2>Welcome {{name}}</h2>');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice', { hasText: 'Template saved.' }).waitFor();
    const row = await s.ctx.db.selectFrom('templates').select('html_body').where('id', '=', t.body.TemplateId).executeTakeFirstOrThrow();
    assert.equal(row.html_body, '<h2>Welcome {{name}}</h2>');
  });

  it('shows a failing webhook delivery in the log, then retries it', async () => {
    hooks.respond(403);
    const w = await s.request('POST', '/webhooks', { body: { Url: hooks.url, Triggers: { Delivery: { Enabled: true } } } });
    assert.equal(w.status, 200, w.text);
    await send({ Subject: 'Hooked', TextBody: 'x' });
    await s.drain();
    await waitFor(async () => (await s.drain()) >= 0 && hooks.requests.length >= 1, { what: 'the first webhook attempt' });
    await page.goto(at(`/webhooks/${w.body.ID}`));
    await page.locator('#delivery-log .status-failed').first().waitFor();
    await shot('webhook');
    hooks.respond(200);
    await page.getByRole('button', { name: 'Retry' }).first().click();
    await page.locator('.notice', { hasText: 'queued again' }).waitFor();
    await s.drain();
    await page.reload();
    await page.locator('#delivery-log .status-delivered').first().waitFor();
  });

  it('draws statistics and shows the admin pages', async () => {
    await page.goto(at('/stats'));
    await page.locator('#chart-volume .uplot').waitFor();
    await shot('stats');
    await page.goto(`${s.url}/console/servers`);
    await shot('servers');
    await page.goto(at('/streams'));
    await shot('streams');
  });

  it('refuses a viewer’s change and a change without the CSRF token, in the browser too', async () => {
    const csrfless = await page.evaluate(async (url) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'stream=outbound&addresses=x%40dest.example' })).status, at('/suppressions/add'));
    assert.equal(csrfless, 403);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(VIEWER);
    await page.goto(at('/suppressions'));
    assert.equal(await page.getByRole('button', { name: 'Suppress' }).count(), 0);
    const status = await page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(document.body.dataset.csrf!)}&stream=outbound&addresses=x%40dest.example` })).status,
      at('/suppressions/add'),
    );
    assert.equal(status, 403);
    assert.equal(await s.ctx.db.selectFrom('suppressions').select('email').where('email', '=', 'x@dest.example').executeTakeFirst(), undefined);
  });

  it('logged no script errors on the console’s own pages', () => {
    // The hostile message's frame reports the scripts and images its sandbox and policy blocked: that is them working.
    const own = browser.errors.filter((e) => !/Content Security Policy|sandboxed|ERR_BLOCKED|Failed to load resource/.test(e));
    assert.deepEqual(own, []);
  });
});
