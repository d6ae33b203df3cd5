// The console shows what became of each message (Delivered, Bounced hard or soft, Spam complaint, Queued,
// Captured, not sent) in Activity under every status filter and on the message page, in a real Chromium;
// the API's Status keeps the hosted values. The timeline prints readable fields, not JSON. Times are shown in
// the viewer's time zone (the browser's, here Europe/Berlin), named, and date fields take ISO dates.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { recordEvent } from '../../../src/domain/events/record.js';
import { addServer } from '../../../src/domain/operations/first-sender.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { launchBrowser, type Browser, screenshots, signIn } from './browser.js';
import { ADMIN, addUsers } from './helpers.js';

const FROM = 'shop@acme.example';
const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;

describe('console in Chromium: the outcome of each message', () => {
  let s: TestService;
  let sink: SmtpSink;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, string> = {};

  const send = async (subject: string, to = 'jane@dest.example', token?: string) => {
    const r = await s.request('POST', '/email', { token, body: { From: FROM, To: to, Subject: subject, TextBody: 'hello' } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const bounce = async (id: string, to: string, type: string) => {
    const rcpt = await s.ctx.db.selectFrom('message_recipients').select('id').where('message_id', '=', id).where('email', '=', to).executeTakeFirstOrThrow();
    await s.ctx.db.transaction().execute((trx) => recordBounce(trx, s.ctx, { messageId: id, email: to, type, details: 'smtp;550 5.1.1 no such user', bouncedAt: s.clock.now(), dump: '', recipientId: rcpt.id }));
  };

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    ids.delivered = await send('Delivered one');
    ids.hard = await send('Hard bounced one', 'gone@dest.example');
    ids.soft = await send('Soft bounced one', 'full@dest.example');
    ids.spam = await send('Complained one', 'angry@dest.example');
    await s.drain();
    await bounce(ids.hard, 'gone@dest.example', 'HardBounce');
    await bounce(ids.soft, 'full@dest.example', 'SoftBounce');
    await bounce(ids.spam, 'angry@dest.example', 'SpamComplaint');
    ids.queued = await send('Queued one');
    // An open with the user agent's fields as tracking records them (objects): shown in words.
    await s.ctx.db.transaction().execute((trx) =>
      recordEvent(trx, s.ctx, {
        messageId: ids.delivered,
        serverId: s.serverId,
        streamId: 'outbound',
        type: 'Opened',
        recipient: 'jane@dest.example',
        occurredAt: s.clock.now(),
        details: { Client: { Name: 'Chrome', Company: 'Google', Family: 'Chrome' }, OS: { Name: 'Windows', Company: 'Microsoft' }, Geo: {}, Platform: 'Desktop' },
        tag: null,
        metadata: {},
      }),
    );
    browser = await launchBrowser({ timezoneId: 'Europe/Berlin' });
    page = await browser.newPage();
    await signIn(page, s.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await s.close();
    await sink.close();
  });

  const at = (path: string) => `${s.url}/console/s/${s.serverId}${path}`;
  /** The status cell of the row whose subject is `subject`. */
  const statusOf = (subject: string) => page.locator('#activity-rows tr', { has: page.getByRole('link', { name: subject, exact: true }) }).locator('td').nth(4).innerText();

  it('Activity labels each message by its outcome, under every status filter', async () => {
    await page.goto(at('/activity'));
    assert.equal(await statusOf('Delivered one'), 'Delivered');
    assert.equal(await statusOf('Hard bounced one'), 'Bounced (hard)');
    assert.equal(await statusOf('Soft bounced one'), 'Bounced (soft)');
    assert.equal(await statusOf('Complained one'), 'Spam complaint');
    assert.equal(await statusOf('Queued one'), 'Queued');
    if (SHOTS) await screenshots(page, SHOTS, 'activity');
    // The received time in the browser's zone, named; the instant itself in the datetime attribute.
    const time = page.locator('#activity-rows time').first();
    const instant = new Date((await time.getAttribute('datetime'))!);
    const p = Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' })
        .formatToParts(instant)
        .map((x) => [x.type, x.value]),
    );
    assert.match(p.timeZoneName!, /^CES?T$/);
    assert.equal(await time.innerText(), `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`);
    assert.equal(await time.getAttribute('title'), 'Europe/Berlin');
    assert.equal(await page.getByLabel('From date').getAttribute('placeholder'), 'YYYY-MM-DD');
    for (const filter of ['bounced', 'sent']) {
      await page.goto(at(`/activity?status=${filter}`));
      assert.equal(await statusOf('Hard bounced one'), 'Bounced (hard)', filter);
      assert.equal(await statusOf('Soft bounced one'), 'Bounced (soft)', filter);
    }
    await page.goto(at('/activity?status=queued'));
    assert.equal(await statusOf('Queued one'), 'Queued');
    assert.equal(await page.getByRole('link', { name: 'Delivered one' }).count(), 0);
    // The API keeps the hosted service's Status: a bounced message is Sent there.
    const api = await s.request('GET', `/messages/outbound/${ids.hard}/details`);
    assert.equal(api.body.Status, 'Sent');
  });

  it('the message page shows the outcome and a readable timeline', async () => {
    await page.goto(at(`/messages/${ids.hard}`));
    assert.equal(await page.locator('dl.summary .status').innerText(), 'Bounced (hard)');
    await page.goto(at(`/messages/${ids.delivered}`));
    assert.equal(await page.locator('dl.summary .status').innerText(), 'Delivered');
    const opened = (await page.locator('li.event-opened').innerText()).replace(/\s+/g, ' ');
    assert.match(opened, /Client Chrome \(Google\)/);
    assert.match(opened, /OS Windows \(Microsoft\)/);
    assert.doesNotMatch(opened, /[{}"]|Geo/);
    if (SHOTS) await screenshots(page, SHOTS, 'message');
  });

  it('a Sandbox server’s mail is Captured, not sent', async () => {
    const inbox = await addServer(s.ctx, 'Test inbox', { sandbox: true });
    await send('Captured one', 'jane@dest.example', inbox.token);
    await s.drain();
    await page.goto(`${s.url}/console/s/${inbox.id}/activity`);
    assert.equal(await statusOf('Captured one'), 'Captured, not sent');
    assert.deepEqual(browser.errors, []);
  });
});
