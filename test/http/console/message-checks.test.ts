// The message page's three checks in a real Chromium (issue 24): the HTML check's features by client family,
// the link check run by its button (and only then: no request to the message's links before), the spam check
// through a real spamd; a viewer may run them; every value from the message stays inert.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { spamdInstalled, startSpamd, type Spamd } from '../../helpers/spamd.js';
import { launchBrowser, type Browser, screenshots, signIn } from './browser.js';
import { ADMIN, addUsers, ConsoleClient, VIEWER } from './helpers.js';

const FROM = 'news@acme.example';
const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;
const noSpamd = spamdInstalled() ? false : 'spamd is not installed (scripts/setup.sh installs spamassassin)';

describe('console message checks in Chromium', () => {
  let s: TestService;
  let spamd: Spamd | null = null;
  let browser: Browser;
  let page: Page;
  let target: http.Server;
  let base = '';
  const hits: string[] = [];
  let id = '';

  before(async () => {
    if (!noSpamd) spamd = await startSpamd();
    // A loopback site: its /ok page exists, anything else is 404; every request is recorded.
    target = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(req.url === '/ok' ? 200 : 404).end();
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true', ...(spamd ? { MAILROOM_SPAMD: spamd.address } : {}) } });
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    const hostileUrl = `${base}/q?a="><img src=x onerror=fetch(\`${base}/xss\`)>`;
    const r = await s.request('POST', '/email', {
      body: {
        From: FROM,
        To: 'jane@dest.example',
        Subject: 'Spring sale',
        HtmlBody: `<html><head><style>.cols{display:flex;gap:12px} .cell{display:grid}</style></head><body><div class="cols"><div class="cell"><a href="${base}/ok">Shop now</a></div><div class="cell"><a href="${base}/gone">Last year</a></div></div><a href='${hostileUrl}'>odd</a><video src="clip.mp4"></video><p style="border-radius:8px">Thanks</p></body></html>`,
        TextBody: `Shop now: ${base}/ok`,
      },
    });
    assert.equal(r.status, 200, r.text);
    id = r.body.MessageID;
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    target?.closeAllConnections();
    await new Promise((r) => (target ? target.close(r) : r(null)));
    await s?.close();
    await spamd?.stop();
  });

  const messageUrl = () => `${s.url}/console/s/${s.serverId}/messages/${id}`;
  const shot = async (name: string) => {
    if (SHOTS) await screenshots(page, SHOTS, name);
  };

  it('a viewer opens the HTML check: the features with limited support, by client family', async () => {
    await signIn(page, s.url, VIEWER);
    await page.goto(messageUrl());
    await page.getByRole('link', { name: 'HTML check' }).click();
    await page.waitForURL(/check=html/);
    const table = page.getByRole('table', { name: 'Features with limited support' });
    const flex = table.getByRole('row').filter({ hasText: 'display:flex' });
    assert.equal(await flex.count(), 1);
    assert.match((await flex.textContent())!, /Outlook \([^)]*Windows/);
    assert.equal(await table.getByRole('row').filter({ hasText: '<video> element' }).count(), 1);
    assert.match((await page.locator('.check-total').textContent())!, /% supported/);
    await shot('message-html-check');
  });

  it('the link check runs on its button only, and shows each status', async () => {
    await page.getByRole('link', { name: 'Link check' }).click();
    await page.waitForURL(/check=links/);
    assert.equal(hits.length, 0, 'opening the tab requested nothing');
    await page.getByRole('button', { name: 'Check links' }).click();
    const table = page.getByRole('table', { name: 'Links' });
    await table.waitFor();
    assert.match((await table.getByRole('row').filter({ hasText: `${base}/ok` }).first().textContent())!, /200 OK/);
    assert.match((await table.getByRole('row').filter({ hasText: `${base}/gone` }).textContent())!, /404 Not Found/);
    assert.ok(hits.some((h) => h.endsWith(' /ok')) && hits.some((h) => h.endsWith(' /gone')));
    // The hostile URL is shown as text.
    assert.ok((await table.locator('code').filter({ hasText: `onerror=fetch(\`${base}/xss\`)>` }).count()) === 1);
    assert.match((await page.locator('section.check-panel').textContent())!, /3 links checked, 2 errors/);
    await shot('message-link-check');
  });

  it('the spam check shows the score and rules from spamd', { skip: noSpamd }, async () => {
    await page.getByRole('link', { name: 'Spam check' }).click();
    await page.waitForURL(/check=spam/);
    const panel = page.locator('section.check-panel');
    assert.match((await panel.textContent())!, /Score -?\d+(\.\d)? not spam/);
    assert.ok((await page.getByRole('table', { name: 'SpamAssassin rules' }).getByRole('row').count()) > 1);
    await shot('message-spam-check');
  });

  it('ran nothing from the message, and no page error', () => {
    assert.equal(hits.filter((h) => h.includes('/xss')).length, 0);
    // The preview's <video> was blocked by its Content-Security-Policy: the message stayed inert.
    assert.deepEqual(browser.errors.filter((e) => !/Loading media from .*clip\.mp4' violates the following Content Security Policy/.test(e)), []);
  });

  it('refuses the link check without the form\'s CSRF token', async () => {
    const c = new ConsoleClient(s);
    await c.signIn(ADMIN);
    const before = hits.length;
    const r = await c.post(`/console/s/${s.serverId}/messages/${id}/link-check`, { _csrf: 'wrong' });
    assert.equal(r.status, 403);
    assert.equal(hits.length, before, 'no request made');
    const ok = await c.post(`/console/s/${s.serverId}/messages/${id}/link-check`, { follow: '1' });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /3 links checked/);
  });

  it('without a spamd the spam tab says how to configure it', async () => {
    const plain = await startService();
    try {
      await addConfirmedSender(plain, FROM);
      await addUsers(plain);
      const sent = await plain.request('POST', '/email', { body: { From: FROM, To: 'a@dest.example', Subject: 'x', TextBody: 'hello' } });
      const c = new ConsoleClient(plain);
      await c.signIn(VIEWER);
      const r = await c.get(`/console/s/${plain.serverId}/messages/${sent.body.MessageID}?check=spam`);
      assert.equal(r.status, 200);
      assert.match(r.text, /spam check is not configured: set MAILROOM_SPAMD/);
      const h = await c.get(`/console/s/${plain.serverId}/messages/${sent.body.MessageID}?check=html`);
      assert.match(h.text, /no HTML part to check/);
    } finally {
      await plain.close();
    }
  });
});
