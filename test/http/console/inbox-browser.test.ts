// A Sandbox server's Activity read like Mailpit's inbox (issue 24), in a real Chromium: unread rows bold with
// a marker, new mail arriving without a reload (unread too), opening a message marks it read (for Mailpit's
// API as well), and "delete all" for admins behind a confirmation page and the CSRF token.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { MailpitClient } from 'mailpit-api';
import type { Page } from 'playwright-core';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { launchBrowser, type Browser, signIn } from './browser.js';
import { ADMIN, addUsers, ConsoleClient, VIEWER, sandboxInbox } from './helpers.js';

const FROM = 'shop@acme.example';
const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;

describe('a Sandbox server as an inbox, in Chromium', () => {
  let s: TestService;
  let browser: Browser;
  let page: Page;
  let token: string;
  let sid: number;
  let mp: MailpitClient;

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    ({ token, sid, mp } = await sandboxInbox(s, 'Dev inbox'));
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s.close();
  });

  const send = async (Subject: string) => {
    const r = await s.request('POST', '/email', { token, body: { From: FROM, To: 'jane@dest.example', Subject, HtmlBody: `<p>${Subject}</p>` } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const shot = async (name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    for (const [label, width] of [['wide', 1280], ['narrow', 390]] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${SHOTS}/${name}-${label}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('shows unread mail, takes new mail live, reads on opening, and empties on request', async () => {
    await send('Welcome, Jane');
    await send('<img src=x onerror="document.title=1">Your receipt');
    await signIn(page, s.url, ADMIN);
    await page.goto(`${s.url}/console/s/${sid}/activity`);
    assert.equal(await page.locator('tr.unread').count(), 2);
    assert.match((await page.locator('#inbox-state').textContent()) ?? '', /2 unread of 2/);
    assert.equal(await page.locator('tr.unread .unread-dot').count(), 2);
    const weight = await page.locator('tr.unread td').first().evaluate((td) => getComputedStyle(td).fontWeight);
    assert.equal(weight, '600');
    assert.notEqual(await page.title(), '1', 'a subject renders as text');

    // Arrives without a reload (the page polls every two seconds), unread.
    const id = await send('Reset your password');
    await page.locator('tr.unread', { hasText: 'Reset your password' }).waitFor({ timeout: 10_000 });
    assert.match((await page.locator('#inbox-state').textContent()) ?? '', /3 unread of 3/, 'the count follows');
    await shot('inbox');

    await page.getByRole('link', { name: 'Reset your password' }).click();
    await page.waitForURL(new RegExp(`/messages/${id}$`));
    assert.equal((await mp.listMessages()).messages.find((m) => m.ID === id)?.Read, true, "read for Mailpit's API too");
    await page.goto(`${s.url}/console/s/${sid}/activity`);
    assert.equal(await page.locator('tr.unread').count(), 2);
    assert.equal(await page.locator('tr', { hasText: 'Reset your password' }).getAttribute('class'), null);

    // Read through the API: the console agrees.
    await mp.setReadStatus({ Read: true });
    await page.reload();
    assert.equal(await page.locator('tr.unread').count(), 0);

    await page.getByRole('link', { name: 'Delete all messages' }).click();
    await page.waitForURL(/\/activity\/delete-all$/);
    assert.match((await page.locator('.card.danger').textContent()) ?? '', /Delete all 3 messages of the Sandbox server Dev inbox\?/);
    await shot('inbox-delete-all');
    await page.getByRole('button', { name: 'Delete all messages' }).click();
    await page.waitForURL(/\/activity$/);
    assert.match(await page.locator('body').textContent() ?? '', /3 messages deleted\./);
    assert.equal((await mp.listMessages()).total, 0);
    assert.deepEqual(browser.errors, []);
  });

  it('refuses delete-all to viewers, without the CSRF token, and on a Live server', async () => {
    await send('Keep me');
    const viewer = new ConsoleClient(s);
    await viewer.signIn(VIEWER);
    assert.equal((await viewer.get(`/console/s/${sid}/activity/delete-all`)).status, 403);
    assert.equal((await viewer.post(`/console/s/${sid}/activity/delete-all`)).status, 403);
    const admin = new ConsoleClient(s);
    await admin.signIn(ADMIN);
    assert.equal((await admin.post(`/console/s/${sid}/activity/delete-all`, { _csrf: 'wrong' })).status, 403);
    assert.equal((await admin.get(`/console/s/${s.serverId}/activity/delete-all`)).status, 400, 'a Live server has no inbox to empty');
    assert.equal((await admin.post(`/console/s/${s.serverId}/activity/delete-all`)).status, 400);
    assert.equal((await mp.listMessages()).total, 1, 'nothing deleted');
    const live = await admin.get(`/console/s/${s.serverId}/activity`);
    assert.doesNotMatch(live.text, /Delete all messages|inbox-state/);
  });
});
