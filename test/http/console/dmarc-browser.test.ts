// The console's DMARC page in a real Chromium (issue 26): ten days of reports taken in through the DMARC
// intake, drawn as aligned versus failing volume per day, the sources with mailroom's own marked, and a
// reporter's hostile org name and report id shown as text, never run. Screenshots (narrow and wide) into
// MAILROOM_CONSOLE_SCREENSHOTS when set.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { takeInDmarc } from '../../../src/domain/dmarc/store.js';
import { startService, type TestService } from '../../helpers/service.js';
import { reportXmlOf } from '../../domain/dmarc/reports.js';
import { xmlBodyMail } from '../../domain/dmarc/helpers.js';
import { launchBrowser, type Browser, screenshots, signIn } from './browser.js';
import { ADMIN, addUsers } from './helpers.js';

const SHOTS = process.env.MAILROOM_CONSOLE_SCREENSHOTS;
const HOSTILE_ORG = '<img src=x onerror="window.__pwned=1">Evil &amp; Co';
const DAY = 86_400;

describe('console: DMARC page in Chromium', () => {
  let s: TestService;
  let browser: Browser;
  let page: Page;
  let id = 0;

  before(async () => {
    s = await startService({ env: { MAILROOM_DMARC_OWN_SOURCES: '192.0.2.0/29' } });
    await addUsers(s);
    const d = (await s.request('POST', '/domains', { accountToken: s.accountToken, body: { Name: 'example.com' } })).body;
    id = d.ID;
    const target = [{ address: 'dmarc@inbound.bounces.localhost', domainId: id }];
    const begin = Date.UTC(2024, 10, 17) / 1000;
    for (let day = 0; day < 10; day++) {
      for (const [org, n] of [['google.com', 20 + day * 4], ['Enterprise Outlook', 6 + (day % 3) * 2], ['Yahoo', 4 + day]] as const) {
        const xml = reportXmlOf({ records: n, orgName: org, reportId: `${org}-${day}`, begin: begin + day * DAY, alignedIps: ['192.0.2.1', '192.0.2.2', '192.0.2.3'] });
        await takeInDmarc(s.ctx, Buffer.from(xmlBodyMail(xml)), '127.0.0.1', target.map((t) => ({ ...t, address: `dmarc+${id}@x` })));
      }
    }
    // The reporter's own values, hostile: escaped in the XML as a reporter would have to send them.
    const hostile = reportXmlOf({ orgName: HOSTILE_ORG.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'), reportId: '&quot;&gt;&lt;script&gt;window.__pwned=2&lt;/script&gt;', begin: begin + 9 * DAY, records: 4 });
    await takeInDmarc(s.ctx, Buffer.from(xmlBodyMail(hostile)), '127.0.0.1', [{ address: 'dmarc@inbound.bounces.localhost', domainId: id }]);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('dialog', (d) => void d.dismiss());
    await signIn(page, s.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await s.close();
  });

  const shot = async (name: string) => {
    if (SHOTS) await screenshots(page, SHOTS, name);
  };

  it('links the page from the domain, draws the chart, marks own sources and keeps reporter values inert', async () => {
    // The record to publish is on the domain's page; its reports are linked from the overview.
    await page.goto(`${s.url}/console/domains/${id}`);
    assert.equal(await page.locator('code', { hasText: '_dmarc.example.com' }).count(), 1);
    await page.goto(`${s.url}/console/senders`);
    await page.getByRole('link', { name: 'DMARC reports' }).click();
    await page.waitForURL(/\/console\/domains\/\d+\/dmarc$/);
    await page.goto(`${s.url}/console/domains/${id}/dmarc?fromdate=2024-11-15&todate=2024-11-28`);
    // uPlot drew into the figure: a canvas and the legend with both series.
    await page.locator('#chart-dmarc canvas').first().waitFor();
    const legend = await page.locator('#chart-dmarc .u-legend').textContent();
    assert.match(legend ?? '', /DMARC pass/);
    assert.match(legend ?? '', /Failing/);
    const figures = await page.locator('.figures').textContent();
    assert.match(figures ?? '', /Reports/);
    // The aligned records come from 192.0.2.1-3, inside MAILROOM_DMARC_OWN_SOURCES: marked as mailroom's.
    const own = page.locator('#dmarc-sources tr.own');
    assert.ok((await own.count()) >= 3);
    assert.match((await own.first().textContent()) ?? '', /192\.0\.2\.\d.*mailroom/);
    const other = page.locator('#dmarc-sources tr:not(.own)', { hasText: '198.51.' });
    assert.ok((await other.count()) > 0);
    assert.match((await other.first().textContent()) ?? '', /other/);
    // The hostile org name and report id are text; nothing they carry ran or loaded.
    const reporter = page.locator('#dmarc-reports td', { hasText: 'Evil & Co' });
    assert.equal(await reporter.count(), 1);
    assert.match((await reporter.textContent()) ?? '', /<img src=x onerror="window.__pwned=1">Evil & Co/);
    assert.equal(await page.locator('#dmarc-reports code', { hasText: '<script>window.__pwned=2</script>' }).count(), 1);
    assert.equal(await page.evaluate('window.__pwned'), undefined);
    assert.equal(await page.locator('#dmarc-reports img').count(), 0);
    assert.deepEqual(browser.errors, []);
    await shot('dmarc');
  });

  it('answers 404 for another account domain or a made-up id', async () => {
    const r = await page.goto(`${s.url}/console/domains/999999/dmarc`);
    assert.equal(r?.status(), 404);
  });
});
