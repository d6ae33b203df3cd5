// The console's webhook, inbound-settings, suppression and stream pages in a real Chromium: a webhook added
// (the transactional stream already chosen), a refused URL said beside its field, a test post to a receiver
// on loopback with its answer on the page, a real delivery in the server's delivery log; the inbound
// address copied, the hook URL set from the "Not posted" notice's link, and its test post. Screenshots at
// 1280 and 390 px into /tmp/con-hooks-*.png (or MAILROOM_CONSOLE_SCREENSHOTS).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { launchBrowser, type Browser, screenshots, signIn } from './browser.js';
import { ADMIN, addUsers } from './helpers.js';

const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS ?? '/tmp';
const FROM = 'shop@acme.example';

describe('console: webhooks and inbound settings in Chromium', () => {
  let s: TestService;
  let sink: SmtpSink;
  let hooks: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  const at = (p: string) => `${s.url}/console/s/${s.serverId}${p}`;
  const shot = (name: string) => screenshots(page, SHOTS, `con-hooks-${name}`);

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    hooks = await startWebhookReceiver();
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    page = await browser.newPage();
    await signIn(page, s.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await hooks.close();
    await s.close();
    await sink.close();
  });

  /** A refused form answers 422, which Chromium logs as a failed load: expected, taken off the list. */
  const dropRefusals = () => {
    for (let i = browser.errors.length - 1; i >= 0; i--) if (/status of 422/.test(browser.errors[i]!)) browser.errors.splice(i, 1);
  };

  it('adds a webhook, test-posts to it, and shows its deliveries in the log', async () => {
    await page.goto(at('/webhooks'));
    assert.equal(await page.locator('#w-stream').inputValue(), 'outbound');
    await page.getByLabel('URL').fill('ftp://hooks.example/x');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('#url-error', { hasText: 'Url must be an absolute http or https URL.' }).waitFor();
    assert.equal(await page.getByLabel('URL').getAttribute('aria-invalid'), 'true');
    await shot('webhook-refused');
    dropRefusals();

    await page.getByLabel('URL').fill(`${hooks.url}/mail-events`);
    await page.getByLabel('Delivery', { exact: true }).check();
    await page.getByLabel('Headers (one "Name: Value" per line)').fill('X-App: console-test');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('#new-secret').waitFor();
    await page.getByRole('link', { name: 'Back to the webhook' }).click();
    await page.getByRole('heading', { name: /Webhook http/ }).waitFor();

    await page.getByLabel('Sample of').selectOption('Bounce');
    await page.getByRole('button', { name: 'Send a test post' }).click();
    await page.locator('#test-post-result', { hasText: 'Test post delivered' }).waitFor();
    const got = hooks.requests[hooks.requests.length - 1]!;
    assert.equal(got.json.RecordType, 'Bounce');
    assert.equal(got.headers['x-app'], 'console-test');
    await shot('webhook-test-post');

    const r = await s.request('POST', '/email', { body: { From: FROM, To: 'jane@dest.example', Subject: 'Hooked', TextBody: 'x' } });
    assert.equal(r.status, 200, r.text);
    await waitFor(async () => (await s.drain()) >= 0 && hooks.requests.some((x) => x.json?.RecordType === 'Delivery'), { what: 'the delivery notification' });
    await page.goto(at('/webhooks'));
    await page.getByRole('link', { name: 'Delivery log of all webhooks' }).click();
    await page.locator('#delivery-log .status-delivered').first().waitFor();
    assert.match((await page.locator('#delivery-log').textContent()) ?? '', /Delivery #\d+/);
    await shot('webhook-log');
    await page.goto(at('/webhooks'));
    await shot('webhooks');
  });

  it('shows and copies the inbound address, sets the hook URL from the notice, and test-posts to it', async () => {
    await page.goto(at('/inbound'));
    await page.locator('#no-hook').waitFor();
    await shot('inbound');
    const address = (await page.locator('#inbound-address').textContent())!;
    assert.equal(address, (await s.request('GET', '/server')).body.InboundAddress);
    await page.getByRole('link', { name: 'Set the InboundHookUrl' }).click();
    await page.waitForURL(/\/inbound\/settings$/);
    await page.getByRole('button', { name: 'Copy the inbound address' }).click();
    await page.locator('button[data-copy="#inbound-address"]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), address);

    await page.getByLabel(/InboundSpamThreshold/).fill('99');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#spam-error', { hasText: 'InboundSpamThreshold must be a whole number from 0 to 30.' }).waitFor();
    await shot('inbound-settings-refused');
    dropRefusals();
    await page.getByLabel(/InboundSpamThreshold/).fill('5');
    await page.getByLabel(/InboundHookUrl/).fill(`${hooks.url}/inbound-app`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice', { hasText: 'Inbound settings saved.' }).waitFor();
    await page.getByRole('button', { name: 'Send a test post' }).click();
    await page.locator('#test-post-result', { hasText: 'Test post delivered' }).waitFor();
    assert.equal(hooks.requests[hooks.requests.length - 1]!.path, '/inbound-app');
    await shot('inbound-settings');
  });

  it('shows suppressions with the export link, and streams with their edit forms', async () => {
    await page.goto(at('/suppressions'));
    await page.getByLabel(/Suppress addresses/).fill('one@dest.example, nope');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.locator('#addresses-error', { hasText: 'nope: Invalid email address.' }).waitFor();
    dropRefusals();
    await shot('suppressions');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export CSV' }).click();
    const file = await download;
    assert.match(file.suggestedFilename(), /^suppressions-\d+-outbound\.csv$/);
    await page.goto(at('/streams'));
    await page.locator('summary', { hasText: 'Edit' }).first().click();
    await shot('streams');
    assert.deepEqual(browser.errors, []);
  });
});
