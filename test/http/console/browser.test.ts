// The console in a real Chromium (Debian's, through playwright-core), against a whole service on loopback
// with a real SMTP sink as the relay and a real webhook target.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { launchBrowser, type Browser, screenshots } from './browser.js';
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
  // What earlier steps made, for the walk over every page at the end.
  const made: Record<string, string> = {};

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

  /** An error the test provoked on purpose (a refused sign-in or change logs its status): taken off the list. */
  const provoked = (pattern: RegExp) => {
    const i = browser.errors.findIndex((e) => pattern.test(e));
    assert.ok(i >= 0, `expected a console error matching ${pattern}: ${browser.errors.join(' | ')}`);
    browser.errors.splice(i, 1);
  };
  const at = (path: string) => `${s.url}/console/s/${s.serverId}${path}`;
  const shot = async (name: string) => {
    if (SHOTS) await screenshots(page, SHOTS, name);
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
    provoked(/\/login: Failed to load resource: .*status of 401/);
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
    made.message = id;
    await page.goto(at('/activity'));
    await shot('activity');
  });

  it('renders a hostile message inert: no script runs, no remote image loads until asked', async () => {
    const evil = `<img src=x onerror="fetch('${trackerUrl}/onerror')"><script>fetch('${trackerUrl}/script')</script><img src="${trackerUrl}/pixel.png" alt="remote">`;
    const id = await send({ From: `"<img src=x onerror=fetch('${trackerUrl}/from')>" <${FROM}>`, Headers: [{ Name: 'X-Evil', Value: `<script>fetch('${trackerUrl}/header')</script>` }], Subject: `<script>fetch('${trackerUrl}/subject')</script><b>bold</b>`, HtmlBody: evil, Tag: '"><img src=x onerror=alert(1)>', Metadata: { k: '<svg onload=alert(1)>' }, Attachments: [{ Name: '<img src=x onerror=alert(2)>.txt', Content: 'aGk=', ContentType: 'text/plain' }] });
    await page.goto(at('/activity'));
    await page.getByText(`<script>fetch('${trackerUrl}/subject')</script><b>bold</b>`).first().waitFor();
    made.hostile = id;
    await page.goto(at(`/messages/${id}`));
    await page.frameLocator('#html-preview').locator('img[alt="remote"]').waitFor({ state: 'attached' });
    await page.waitForLoadState('load');
    assert.equal(hits.length, 0, hits.join(", "));
    assert.equal(await page.locator('b', { hasText: 'bold' }).count(), 0);
    assert.ok((await page.locator('ul.attachments').textContent())!.includes('<img src=x onerror=alert(2)>.txt'));
    await page.getByRole('link', { name: 'Load remote images' }).click();
    await waitFor(() => hits.includes('/pixel.png'), { what: 'the remote image after asking' });
    assert.deepEqual([...new Set(hits)], ['/pixel.png'], 'only the image asked for loaded; no script, handler, subject, From or header ran');
  });

  it('activates a bounce, and shows a remote server’s hostile bounce text inert', async () => {
    const bounce = async (to: string, details: string, dump: string) => {
      const id = await send({ To: to, TextBody: 'hello', Subject: 'Bounced one' });
      const rcpt = await s.ctx.db.selectFrom('message_recipients').select('id').where('message_id', '=', id).executeTakeFirstOrThrow();
      await s.ctx.db.transaction().execute((trx) => recordBounce(trx, s.ctx, { messageId: id, email: to, type: 'HardBounce', details, bouncedAt: s.clock.now(), dump, recipientId: rcpt.id }));
    };
    await bounce('gone@dest.example', 'smtp;550 5.1.1 <gone@dest.example>: Recipient address rejected: User unknown', 'Diagnostic-Code: smtp; 550 5.1.1 User unknown');
    await page.goto(at('/bounces'));
    await shot('bounces');
    await page.getByRole('button', { name: 'Activate gone@dest.example' }).click();
    await page.locator('.notice').waitFor();
    const sup = await s.ctx.db.selectFrom('suppressions').select('email').where('email', '=', 'gone@dest.example').executeTakeFirst();
    assert.equal(sup, undefined);

    await bounce('evil@dest.example', `smtp;550 5.1.1 no such user <img src=x onerror="fetch('${trackerUrl}/bounce')">`, `<script>fetch('${trackerUrl}/dump')</script>`);
    await page.goto(at('/bounces?emailfilter=evil'));
    await page.getByText(`<img src=x onerror="fetch('${trackerUrl}/bounce')">`, { exact: false }).waitFor();
    await page.getByRole('link', { name: 'Dump' }).first().click();
    await page.getByText(`<script>fetch('${trackerUrl}/dump')</script>`).waitFor();
    assert.ok(!hits.includes('/bounce') && !hits.includes('/dump'), hits.join(','));
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
    made.template = String(t.body.TemplateId);
  });

  it('sends a test of the saved template with the test model to a typed address; a viewer sees no button', async () => {
    await page.goto(at(`/templates/${made.template}`));
    await page.getByLabel('Test model (JSON)').fill('{"name": "Grace"}');
    assert.equal(await page.getByLabel('From (a confirmed sender)').inputValue(), FROM);
    await page.getByLabel('To', { exact: true }).fill('qa@dest.example');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.locator('.notice', { hasText: 'Test sent to qa@dest.example' }).waitFor();
    assert.equal(await page.getByLabel('Test model (JSON)').inputValue(), '{"name": "Grace"}'); // the form as it was
    await s.drain();
    // Earlier messages may reach the sink in the same drain: the test is the one to the typed address.
    await waitFor(() => sink.messages.some((m) => m.to.includes('qa@dest.example')), { what: 'the test message at the SMTP sink' });
    const mail = sink.messages.find((m) => m.to.includes('qa@dest.example'))!;
    assert.match(mail.raw, /Subject: Hi Grace/);
    assert.match(mail.raw, /Welcome Grace/);
    // The page that answers keeps the form, and its preview renders the form's test model, not the stored one.
    await page.frameLocator('#template-preview').locator('h2', { hasText: 'Welcome Grace' }).waitFor();
    assert.equal(await page.locator('#rendered-subject').textContent(), 'Hi Grace');
    await shot('template-send-test');
  });

  it('lists layouts with the templates using them, and edits one with a live preview', async () => {
    const l = await s.request('POST', '/templates', { body: { Name: 'Brand frame', Alias: 'brand', TemplateType: 'Layout', HtmlBody: '<div style="border:4px solid #2563eb;padding:12px">{{{@content}}}</div>', TextBody: '{{{@content}}}' } });
    assert.equal(l.status, 200, l.text);
    const user = await s.request('POST', '/templates', { body: { Name: 'Password reset', Alias: 'reset', LayoutTemplate: 'brand', Subject: 'Reset', HtmlBody: '<p>Reset it, {{name}}</p>', TextBody: 'Reset' } });
    assert.equal(user.status, 200, user.text);
    await page.goto(at('/templates'));
    await page.getByRole('link', { name: 'Layouts' }).click();
    await page.waitForURL(/\/layouts$/);
    const row = page.getByRole('row', { name: /Brand frame/ });
    assert.match((await row.textContent())!, /Password reset/);
    await shot('layouts');
    await row.getByRole('link', { name: 'Brand frame' }).click();
    await page.getByRole('heading', { name: 'Layout: Brand frame' }).waitFor();
    assert.equal(await page.locator('ul.used-by a').textContent(), 'Password reset');
    await page.getByLabel('HTML body').fill('<header><strong>ACME</strong></header>{{{@content}}}<footer>Unsubscribe anytime</footer>');
    await page.frameLocator('#template-preview').locator('footer', { hasText: 'Unsubscribe anytime' }).waitFor();
    await shot('layout-editor');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice', { hasText: 'Template saved.' }).waitFor();
    const saved = await s.ctx.db.selectFrom('templates').select('html_body').where('id', '=', l.body.TemplateId).executeTakeFirstOrThrow();
    assert.match(saved.html_body!, /<footer>Unsubscribe anytime<\/footer>/);
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
    made.webhook = String(w.body.ID);
  });

  it('deletes a webhook after a confirmation step', async () => {
    const w = await s.request('POST', '/webhooks', { body: { Url: 'https://old-hooks.example.com/mail', Triggers: { Bounce: { Enabled: true } } } });
    assert.equal(w.status, 200, w.text);
    await page.goto(at(`/webhooks/${w.body.ID}`));
    await page.getByRole('link', { name: 'Delete this webhook…' }).click();
    await page.getByRole('heading', { name: 'Delete webhook?' }).waitFor();
    assert.equal((await s.request('GET', `/webhooks/${w.body.ID}`)).status, 200); // not yet
    await shot('webhook-delete');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(new RegExp(`/webhooks/${w.body.ID}$`));
    await page.getByRole('link', { name: 'Delete this webhook…' }).click();
    await page.getByRole('button', { name: 'Delete this webhook' }).click();
    await page.locator('.notice', { hasText: 'deleted' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'https://old-hooks.example.com/mail' }).count(), 0);
    assert.notEqual((await s.request('GET', `/webhooks/${w.body.ID}`)).status, 200);
  });

  it('issues a server token shown once, then revokes it; the API refuses it at once', async () => {
    await page.goto(`${s.url}/console/servers`);
    await page.getByRole('button', { name: /Issue a server token for/ }).first().click();
    const token = (await page.locator('#new-token').textContent())!;
    assert.equal((await s.request('GET', '/server', { token })).status, 200);
    await shot('token-issued');
    await page.getByRole('link', { name: 'Back to servers and tokens' }).click();
    assert.ok(!(await page.content()).includes(token), 'the token is not shown again');
    await page.getByRole('button', { name: `Revoke server token ending ${token.slice(-4)}` }).click();
    await page.locator('.notice', { hasText: 'revoked' }).waitFor();
    assert.equal((await s.request('GET', '/server', { token })).status, 401);
    await page.goBack();
    assert.ok(!(await page.content()).includes(token), 'nor by going back');
  });

  it('draws statistics and shows the admin pages', async () => {
    await page.goto(at('/stats'));
    await page.locator('#chart-volume .uplot').waitFor();
    await shot('stats');
    await page.goto(`${s.url}/console/servers`);
    await shot('servers');
    await page.goto(`${s.url}/console/senders`);
    await shot('senders');
    await page.goto(at('/streams'));
    await shot('streams');
    await page.goto(at('/templates'));
    await shot('templates');
  });

  it('shows a bulk request with its progress bar and its messages, the sender’s values inert', async () => {
    const res = await s.request('POST', '/email/bulk', {
      body: {
        From: FROM,
        MessageStream: 'broadcast',
        Subject: `Spring news <img src=x onerror="fetch('${trackerUrl}/bulk')">`,
        TextBody: 'Hello {{name}}',
        Tag: 'newsletter',
        Messages: Array.from({ length: 12 }, (_, i) => ({ To: `reader${i}@dest.example`, TemplateModel: { name: `Reader ${i}` } })),
      },
    });
    assert.equal(res.status, 200, res.text);
    made.bulk = res.body.Id;
    await s.drain();
    // Every message handed off: the request is Completed within a moment (the bulk finisher), and the page says so.
    const status = async () => (await s.ctx.db.selectFrom('bulk_requests').select('status').where('id', '=', made.bulk).executeTakeFirstOrThrow()).status;
    await waitFor(async () => (await status()) === 'Completed', { what: 'the bulk request to be Completed' });
    await page.goto(at('/bulk'));
    await page.getByRole('img', { name: '12 of 12 compiled, 12 sent, 12 delivered, 0 bounced' }).first().waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: 'Spring news' }).getByText('Completed').count(), 1);
    await shot('bulk');
    await page.getByRole('link', { name: `Spring news <img src=x onerror="fetch('${trackerUrl}/bulk')">` }).click();
    await page.waitForURL(new RegExp(`/bulk/${made.bulk}`));
    await page.getByRole('cell', { name: 'reader11@dest.example' }).waitFor();
    await shot('bulk-request');
    assert.ok(!hits.includes('/bulk'), hits.join(','));
  });

  it('labels every control and can be used with the keyboard, on every page', async () => {
    const pages = [
      '/activity', '/bulk', `/bulk/${made.bulk}`, `/messages/${made.message}`, `/messages/${made.hostile}`, '/bounces', '/suppressions', '/streams', '/templates', `/templates/${made.template}`, '/layouts',
      '/webhooks', `/webhooks/${made.webhook}`, `/webhooks/${made.webhook}/delete`, '/stats',
    ].map(at).concat([`${s.url}/console/servers`, `${s.url}/console/senders`]);
    for (const url of pages) {
      await page.goto(url);
      const problems = await page.evaluate<string[]>(`(() => {
        const out = [];
        const nameOf = (el) => {
          const aria = el.getAttribute('aria-label');
          if (aria) return aria;
          const by = el.getAttribute('aria-labelledby');
          if (by) return by.split(" ").map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
          const labels = el.labels;
          if (labels && labels.length) return [...labels].map((l) => l.textContent ?? '').join(' ').trim();
          if (el.tagName === 'BUTTON' || el.tagName === 'A' || el.tagName === 'SUMMARY') return (el.textContent ?? '').trim();
          return el.getAttribute('title') ?? '';
        };
        for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href], summary')) {
          if (!nameOf(el)) out.push('no name: ' + el.outerHTML.slice(0, 120));
          const tab = el.getAttribute('tabindex');
          if (tab !== null && Number(tab) !== 0) out.push('tabindex ' + tab + ': ' + el.outerHTML.slice(0, 80));
        }
        for (const f of document.querySelectorAll('iframe')) if (!f.title) out.push('an iframe without a title');
        const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
        for (const id of new Set(ids)) if (ids.filter((x) => x === id).length > 1) out.push('duplicate id ' + id);
        if (!document.querySelector('h1')) out.push('no h1');
        return out;
      })()`);
      assert.deepEqual(problems, [], url);
    }
    // Keyboard: Tab walks the page in order, each focused control shows a visible focus ring, and Enter on a
    // focused link follows it.
    await page.goto(at('/activity'));
    const seen: string[] = [];
    for (let i = 0; i < 80 && !seen.includes('Your order #1001'); i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate<{ text: string; outline: string; tag: string }>(`(() => {
        const el = document.activeElement;
        return { text: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim(), outline: getComputedStyle(el).outlineStyle, tag: el.outerHTML.slice(0, 100) };
      })()`);
      assert.notEqual(f.outline, 'none', `focus ring on ${f.tag} ${f.text}`);
      seen.push(f.text);
    }
    assert.ok(seen.includes('Filter') && seen.includes('Your order #1001'), seen.join(' | '));
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(made.message!));
  });

  it('refuses a viewer’s change and a change without the CSRF token, in the browser too', async () => {
    const csrfless = await page.evaluate(async (url) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'stream=outbound&addresses=x%40dest.example' })).status, at('/suppressions/add'));
    assert.equal(csrfless, 403);
    provoked(/Failed to load resource: .*status of 403/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    // Signing in with the keyboard alone: the address field has focus, Tab to the password, Enter sends.
    await page.goto(`${s.url}/login`);
    await page.keyboard.type(VIEWER.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(VIEWER.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/activity/);
    await page.goto(at('/suppressions'));
    assert.equal(await page.getByRole('button', { name: 'Suppress' }).count(), 0);
    const status = await page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(document.body.dataset.csrf!)}&stream=outbound&addresses=x%40dest.example` })).status,
      at('/suppressions/add'),
    );
    assert.equal(status, 403);
    provoked(/Failed to load resource: .*status of 403/);
    assert.equal(await s.ctx.db.selectFrom('suppressions').select('email').where('email', '=', 'x@dest.example').executeTakeFirst(), undefined);
  });

  it('refuses a foreign page that posts its own account to the sign-in form (login CSRF)', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    // Another site (localhost is not 127.0.0.1) with a form that signs the visitor in as the attacker.
    const foreign = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form method="post" action="${s.url}/login"><input name="email" value="${VIEWER.email}"><input name="password" value="${VIEWER.password}"></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
    try {
      await page.goto(`http://localhost:${(foreign.address() as AddressInfo).port}/`, { waitUntil: 'commit' });
      await page.waitForURL(`${s.url}/login`, { waitUntil: 'domcontentloaded' });
      assert.match((await page.locator('.error').textContent()) ?? '', /refused because the browser reports it came from another site/);
      provoked(/Failed to load resource: .*status of 403/);
      await page.goto(at('/activity'));
      assert.match(page.url(), /\/login/, 'not signed in to the attacker’s account');
    } finally {
      foreign.closeAllConnections(); // the browser keeps its connection alive; close() alone would wait for it
      await new Promise((r) => foreign.close(r));
    }
  });

  it('logged no console errors and no page errors', () => {
    // Only the hostile message's page may report something: the scripts and images its sandboxed frame's policy
    // blocked (that is the policy working). Any other error on any page fails, a 404 of an asset included.
    const hostile = (e: string) => e.includes(`/messages/${made.hostile}`) && /Content Security Policy|sandboxed|ERR_BLOCKED|Failed to load resource/.test(e);
    assert.deepEqual(browser.errors.filter((e) => !hostile(e)), []);
  });
});
