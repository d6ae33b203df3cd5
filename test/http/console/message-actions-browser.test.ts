// Mailpit's per-message actions and search box on the console, in a real Chromium over a Sandbox server:
// the Mailpit-syntax search lists the matches and the message page's newer/older links walk that list;
// tag editing, mark unread, download .eml, release through a relay (a real smtp-server on loopback) and
// delete behind a confirmation page, each checked through Mailpit's API as well; the "All streams" list;
// a bad search answered beside the box; a Live server's page keeps navigation and download only.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { MailpitClient } from 'mailpit-api';
import type { Page } from 'playwright-core';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { launchBrowser, type Browser, signIn } from './browser.js';
import { ADMIN, addUsers, sandboxInbox } from './helpers.js';

const FROM = 'shop@acme.example';
const SHOTS = '/tmp';

describe('message actions and the Mailpit search box, in Chromium', () => {
  let s: TestService;
  let relay: SmtpSink;
  let browser: Browser;
  let page: Page;
  let token: string;
  let sid: number;
  let mp: MailpitClient;

  before(async () => {
    relay = await startSmtpSink();
    s = await startService({ env: { MAILROOM_RELEASE_RELAY_HOST: '127.0.0.1', MAILROOM_RELEASE_RELAY_PORT: String(relay.port), MAILROOM_RELEASE_RELAY_TLS: 'none', MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS: 'real.example' } });
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    ({ token, sid, mp } = await sandboxInbox(s, 'Test inbox'));
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s.close();
    await relay.close();
  });

  const send = async (Subject: string, To = 'jane@dest.example', Tag?: string) => {
    const r = await s.request('POST', '/email', { token, body: { From: FROM, To, Subject, HtmlBody: `<p>${Subject}</p>`, TextBody: Subject, ...(Tag ? { Tag } : {}) } });
    assert.equal(r.status, 200, r.text);
    s.clock.advance(1000);
    return r.body.MessageID as string;
  };
  const shot = async (name: string) => {
    for (const [label, width] of [['1280', 1280], ['390', 390]] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${SHOTS}/mailpit-ui-${name}-${label}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('searches in Mailpit syntax, walks the matches, edits tags, marks unread, releases and deletes', async () => {
    const a = await send('Welcome, Jane', 'jane@dest.example', 'welcome');
    await send('Invoice for Bob', 'bob@dest.example');
    const c = await send('Welcome back, Jane', 'jane@dest.example');
    await send('<img src=x onerror="document.title=1">Receipt', 'jane@dest.example');

    await signIn(page, s.url, ADMIN);
    await page.goto(`${s.url}/console/s/${sid}/activity`);

    await page.getByLabel("Search (Mailpit's syntax)").fill('to:jane subject:welcome -tag:nothing');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=to%3Ajane/);
    const subjects = await page.locator('#activity-rows td a').allTextContents();
    assert.deepEqual(subjects, ['Welcome back, Jane', 'Welcome, Jane']);
    assert.notEqual(await page.title(), '1');
    await shot('search');

    // Newer/older walk the search, not the whole inbox.
    await page.getByRole('link', { name: 'Welcome back, Jane' }).click();
    await page.waitForURL(new RegExp(`/messages/${c}\\?q=`));
    assert.equal(await page.locator('[data-nav="prev"]').count(), 0, 'the newest match has no newer one');
    await page.locator('[data-nav="next"]').click();
    await page.waitForURL(new RegExp(`/messages/${a}\\?q=`));
    assert.equal(await page.locator('[data-nav="next"]').count(), 0, 'the oldest match has no older one');

    // Tags: add, then check through Mailpit's API.
    await page.getByLabel('Tags', { exact: true }).fill('welcome, vip');
    await page.getByRole('button', { name: 'Save tags' }).click();
    await page.getByText('Tags saved.').waitFor();
    assert.deepEqual((await mp.getMessageSummary(a)).Tags.sort(), ['vip', 'welcome']);
    assert.equal(await page.getByLabel('Tags', { exact: true }).inputValue(), 'welcome, vip');
    await shot('message');

    // Download .eml.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download .eml' }).click()]);
    const eml = readFileSync((await download.path())!, 'utf8');
    assert.match(eml, /^Subject: Welcome, Jane\r?$/m);

    // Release: a recipient off the list is refused beside nothing sent; an allowed one goes through the relay.
    await page.getByLabel('Release to').fill('boss@elsewhere.example');
    await page.getByRole('button', { name: 'Release' }).click();
    await page.locator('.error', { hasText: 'does not match the allowed recipients' }).waitFor();
    assert.equal(relay.messages.length, 0);
    await page.getByLabel('Release to').fill('qa@real.example');
    await page.getByRole('button', { name: 'Release' }).click();
    await page.getByText('Released to qa@real.example.').waitFor();
    assert.equal(relay.messages.length, 1);
    assert.deepEqual(relay.messages[0]!.to, ['qa@real.example']);

    // Mark unread goes back to the search, the message unread there and in the API.
    await page.getByRole('button', { name: 'Mark unread' }).click();
    await page.waitForURL(/\/activity\?q=/);
    assert.equal(await page.locator('tr.unread', { hasText: 'Welcome, Jane' }).count(), 1);
    assert.equal((await mp.searchMessages({ query: 'is:unread subject:"Welcome, Jane"' })).messages_count, 1);

    // Delete, after a confirmation page; moves on to the list at the end of the search.
    await page.getByRole('link', { name: 'Welcome, Jane', exact: true }).click();
    await page.getByRole('link', { name: 'Delete…' }).click();
    await page.waitForURL(/\/delete\?q=/);
    await shot('delete');
    await page.getByRole('button', { name: 'Delete message' }).click();
    await page.getByText('Message deleted.').waitFor();
    await page.waitForURL(/\/activity\?q=/);
    assert.deepEqual(await page.locator('#activity-rows td a').allTextContents(), ['Welcome back, Jane']);
    assert.equal((await mp.listMessages()).total, 3);
  });

  it('answers a bad search beside the box, and lists every stream on request', async () => {
    await page.goto(`${s.url}/console/s/${sid}/activity?q=${encodeURIComponent(`subject:${'x'.repeat(1200)}`)}`);
    assert.match((await page.locator('#f-q-error').textContent()) ?? '', /longer than 1000 characters/);
    assert.equal(await page.getByLabel("Search (Mailpit's syntax)").getAttribute('aria-invalid'), 'true');
    await page.goto(`${s.url}/console/s/${sid}/activity`);
    await page.getByLabel('Stream').selectOption('all');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/stream=all/);
    assert.equal(await page.locator('#activity-rows tr').count(), 3);
    assert.match((await page.locator('#list-mode').textContent()) ?? '', /Messages of every stream/);
    await shot('all-streams');
  });

  it('keeps navigation and download only on a Live server, and refuses inbox actions there', async () => {
    const live = s.serverId;
    const r = await s.request('POST', '/email', { body: { From: FROM, To: 'x@dest.example', Subject: 'Live one', TextBody: 'x' } });
    assert.equal(r.status, 200, r.text);
    await page.goto(`${s.url}/console/s/${live}/messages/${r.body.MessageID}`);
    assert.equal(await page.getByRole('link', { name: 'Download .eml' }).count(), 1);
    assert.equal(await page.getByRole('button', { name: 'Mark unread' }).count(), 0);
    assert.equal(await page.getByLabel("Search (Mailpit's syntax)").count(), 0);
    const del = await page.goto(`${s.url}/console/s/${live}/messages/${r.body.MessageID}/delete`);
    assert.equal(del?.status(), 400);
  });
});
