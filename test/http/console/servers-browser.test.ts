// Servers and console users in a real Chromium: a server created, a refused setting answered beside its field,
// settings saved, a token issued and revoked, the server deleted after its name is typed; a user added with a
// generated password. Screenshots (MAILROOM_CONSOLE_SCREENSHOTS=dir) at 1280 and 390 px; no page error, and
// nothing wider than the phone's screen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startService, type TestService } from '../../helpers/service.js';
import { launchBrowser, screenshots, type Browser, signIn } from './browser.js';
import { ADMIN, addUsers } from './helpers.js';

const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;

describe('servers and users in Chromium', () => {
  let s: TestService;
  let browser: Browser;
  let page: Page;

  before(async () => {
    s = await startService();
    await addUsers(s);
    browser = await launchBrowser();
    page = await browser.newPage();
    await signIn(page, s.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** Screenshots, and no element wider than a 390 px screen (the page never scrolls sideways). */
  const look = async (name: string) => {
    if (SHOTS) await screenshots(page, SHOTS, name);
    await page.setViewportSize({ width: 390, height: 800 });
    const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.ok(wide <= 390, `${name}: the page is ${wide} px wide on a 390 px screen`);
  };

  it('creates, edits, issues a token for, and deletes a server', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('link', { name: 'New server' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Staging inbox');
    await page.getByLabel('Delivery type').selectOption('Sandbox');
    await page.getByLabel('Color').selectOption('Turquoise');
    await page.getByLabel('Sandbox takes any From').check();
    await look('new');
    await page.getByRole('button', { name: 'Create server' }).click();
    const first = (await page.locator('#new-token').textContent())!;
    assert.equal((await s.request('GET', '/server', { token: first })).body.Name, 'Staging inbox');
    await look('created');
    await page.getByRole('link', { name: 'Settings of the server' }).click();
    await page.locator('#inbound-address').waitFor();

    // A refused value: the API's Message under the field, the other values as typed.
    await page.getByLabel('Name', { exact: true }).fill('Default');
    await page.getByLabel('Retention (days)').fill('90');
    await page.getByLabel('Bounce hook URL').fill('https://hooks.example.com/b');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const error = page.locator('#name-error');
    await error.waitFor();
    assert.equal(await error.textContent(), "A server named 'Default' already exists.");
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Retention (days)').inputValue(), '90');
    await look('refused');

    await page.getByLabel('Name', { exact: true }).fill('Staging inbox 2');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('.notice', { hasText: 'Settings of Staging inbox 2 saved.' }).waitFor();
    const v = (await s.request('GET', '/server', { token: first })).body;
    assert.deepEqual([v.Name, v.RetentionDays, v.BounceHookUrl, v.Color, v.SandboxAcceptsAnyFrom], ['Staging inbox 2', 90, 'https://hooks.example.com/b', 'Turquoise', true]);
    await look('server');

    await page.getByRole('button', { name: 'Issue a server token for Staging inbox 2' }).click();
    const second = (await page.locator('#new-token').textContent())!;
    await page.getByRole('link', { name: 'Settings of the server' }).click();
    await page.getByRole('button', { name: `Revoke server token ending ${second.slice(-4)}` }).click();
    await page.locator('.notice', { hasText: 'revoked' }).waitFor();
    assert.match(page.url(), new RegExp(`/console/servers/${v.ID}$`));
    assert.equal((await s.request('GET', '/server', { token: second })).status, 401);

    await page.getByRole('link', { name: 'Delete Staging inbox 2…' }).click();
    await page.getByRole('button', { name: 'Delete this server' }).click();
    await page.locator('#confirm-error').waitFor();
    await look('delete-refused');
    await page.getByLabel("Type the server's name to confirm").fill('Staging inbox 2');
    await page.getByRole('button', { name: 'Delete this server' }).click();
    await page.locator('.notice', { hasText: 'Server Staging inbox 2 deleted.' }).waitFor();
    assert.equal((await s.request('GET', '/server', { token: first })).status, 401);
    await look('servers');
  });

  it('adds a user with a generated password and changes their role', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Email', { exact: true }).fill('new.person@example.com');
    await page.getByRole('button', { name: 'Add user' }).click();
    assert.ok(((await page.locator('#new-password').textContent()) ?? '').length >= 20);
    await page.getByRole('link', { name: 'Back to console users' }).click();
    await page.getByLabel('Role of new.person@example.com', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Change the role of new.person@example.com' }).click();
    await page.locator('.notice', { hasText: 'new.person@example.com is now admin.' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill('not-an-address@');
    await page.getByLabel('Password').fill('short');
    await page.evaluate('document.getElementById("user-email").type = "text"'); // past the browser's own check
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.locator('#email-error').waitFor();
    await look('users');
    // A refused form is answered 422 on purpose (Chromium logs each such answer); nothing else may be logged.
    assert.deepEqual(browser.errors.filter((e) => !/responded with a status of 422/.test(e)), []);
  });
});
