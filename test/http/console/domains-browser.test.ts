// Senders and domains in a real Chromium, DNS answered by a real server on loopback: a domain added through
// the form (a refused name first, its message beside the field), its records copied with the copy buttons,
// DKIM verified once published, deleted after the confirmation page; a sender added and a refused one. Every
// page fits a 390 px phone without scrolling sideways (a DKIM key is 400 characters without a space).
// Screenshots (wide and narrow) into MAILROOM_CONSOLE_SCREENSHOTS when set, named con-domains-*.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { launchBrowser, screenshots, type Browser, signIn } from './browser.js';
import { ADMIN, addUsers } from './helpers.js';

const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;

describe('console: senders and domains in Chromium', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_RETURN_PATH_DOMAIN: 'bounces.mailroom.test' } });
    await addUsers(s);
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    page = await browser.newPage();
    await signIn(page, s.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await s.close();
    await dns.close();
  });

  // A refused form answers 422 (as the API), and Chromium logs every 4xx page load as a console error:
  // those are expected here, anything else is not.
  const unexpectedErrors = () => browser.errors.filter((e) => !/\/console\/(domains|senders): Failed to load resource: the server responded with a status of 422/.test(e));

  /** Screenshots when asked for, and in any case: nothing wider than the phone's screen at 390 px. */
  const look = async (name: string) => {
    if (SHOTS) await screenshots(page, SHOTS, `con-domains-${name}`);
    await page.setViewportSize({ width: 390, height: 800 });
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 390, `${name}: the page is ${width} px wide on a 390 px phone`);
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('adds a domain (a refused name first), copies its records, verifies DKIM and deletes it', async () => {
    await page.goto(`${s.url}/console/senders`);
    await page.getByText('Add a domain').click();
    await page.getByLabel('Domain name').fill('gmail.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const error = page.locator('#nd-name-error');
    await error.waitFor();
    const api = (await s.request('POST', '/domains', { accountToken: s.accountToken, body: { Name: 'gmail.com' } })).body.Message as string;
    assert.equal(await error.textContent(), api);
    assert.equal(await page.getByLabel('Domain name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Domain name').inputValue(), 'gmail.com');
    await look('refused');

    await page.getByLabel('Domain name').fill('shop.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.waitForURL(/\/console\/domains\/\d+$/);
    await page.locator('.notice', { hasText: 'Domain shop.example added' }).waitFor();
    const id = Number(/\/console\/domains\/(\d+)$/.exec(page.url())![1]);
    const d = (await s.request('GET', `/domains/${id}`, { accountToken: s.accountToken })).body;
    // A copy button puts the record's exact value on the clipboard.
    await page.getByRole('button', { name: 'Copy the DKIM key value' }).click();
    await page.getByRole('button', { name: 'Copy the DKIM key value' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), d.DKIMPendingTextValue);
    await page.getByRole('button', { name: 'Copy the DKIM key host' }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), d.DKIMPendingHost);
    await look('domain-pending');

    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: d.DKIMPendingTextValue }]);
    await page.getByRole('button', { name: 'Verify DKIM' }).click();
    await page.locator('.notice', { hasText: 'The DKIM key of shop.example verified.' }).waitFor();
    assert.match((await page.locator('#dkim-title').textContent()) ?? '', /DKIM key TXT verified/);
    await page.getByLabel('Return-Path domain').fill('pm-bounces.shop.example');
    await page.getByLabel('Tracking domain').fill('links.shop.example');
    await page.getByRole('button', { name: 'Save hosts' }).click();
    await page.locator('.notice', { hasText: 'Hosts of shop.example saved.' }).waitFor();
    await page.locator('[data-record="return-path"]').waitFor();
    await look('domain-verified');

    await page.goto(`${s.url}/console/senders`);
    await look('overview');

    await page.goto(`${s.url}/console/domains/${id}`);
    await page.getByRole('link', { name: 'Delete shop.example…' }).click();
    await page.getByRole('button', { name: 'Delete this domain' }).waitFor();
    await look('domain-delete');
    await page.getByRole('button', { name: 'Delete this domain' }).click();
    await page.locator('.notice', { hasText: 'Domain shop.example deleted.' }).waitFor();
    assert.equal(await s.ctx.db.selectFrom('domains').select('id').where('id', '=', id).executeTakeFirst(), undefined);
    assert.deepEqual(unexpectedErrors(), []);
  });

  it('adds a sender signature (a refused Return-Path first) and shows its page', async () => {
    await page.goto(`${s.url}/console/senders`);
    await page.getByText('Add a sender signature').click();
    await page.getByLabel('From address').fill('news@acme.example');
    await page.getByLabel('Name', { exact: true }).fill('Acme news');
    await page.locator('#ns-rp').fill('bounces.other.example');
    await page.getByRole('button', { name: 'Add sender signature' }).click();
    const error = page.locator('#ns-rp-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /^ReturnPathDomain must be a subdomain of acme\.example/);
    await look('sender-refused');
    await page.locator('#ns-rp').fill('');
    await page.getByRole('button', { name: 'Add sender signature' }).click();
    await page.waitForURL(/\/console\/senders\/\d+$/);
    await page.locator('.notice', { hasText: 'Sender signature news@acme.example added' }).waitFor();
    await look('sender');
    assert.deepEqual(unexpectedErrors(), []);
  });
});
