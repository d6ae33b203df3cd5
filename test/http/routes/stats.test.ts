import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeVerp } from '../../../src/infra/mime/verp.js';
import { clickUrl, openUrl } from '../../../src/domain/tracking/tokens.js';
import { loadFixture } from '../../fixtures/load.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { deliverReport } from '../../domain/inbound/helpers.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const FROM = 'stats@example.com';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';

// 23:59 on 9 March in Moscow is 20:59 UTC; two minutes later it is 10 March there.
const BEFORE_MIDNIGHT = '2026-03-09T20:59:00Z';

describe('statistics from real sends, opens, clicks and bounces across a Moscow midnight', () => {
  let s: TestService;
  let sink: SmtpSink;
  const ids: string[] = [];
  const send = async (o: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { body: { From: FROM, To: 'reader@example.net', Subject: 'Hi', HtmlBody: '<p><a href="https://example.org/a">a</a></p>', ...o } });
    assert.equal(r.status, 200, r.text);
    ids.push(r.body.MessageID);
    return r.body.MessageID as string;
  };
  const get = (path: string) => s.request('GET', path);
  const hit = async (url: string, agent: string) => {
    const r = await fetch(s.url + new URL(url).pathname, { headers: { 'user-agent': agent }, redirect: 'manual' });
    await r.arrayBuffer();
    assert.ok(r.status === 200 || r.status === 302, String(r.status));
  };

  before(async () => {
    sink = await startSmtpSink();
    sink.rcptReplies.set('gone@example.net', { code: 550, message: '5.1.1 No such user' });
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, FROM);
    s.clock.freeze(BEFORE_MIDNIGHT);
    // 9 March (Moscow): two tagged sends, one tracked, opened twice from Chrome and once from an iPhone,
    // its links clicked three times; the other one bounces (550 5.1.1 from the relay).
    const a = await send({ Tag: 'welcome', TrackOpens: true, TrackLinks: 'HtmlOnly' });
    await send({ Tag: 'welcome', To: 'gone@example.net' });
    await s.drain();
    assert.equal(sink.messages.length, 1, 'one delivered, one refused');
    await hit(openUrl(s.ctx, { messageId: a, recipient: 'reader@example.net' }), CHROME);
    await hit(openUrl(s.ctx, { messageId: a, recipient: 'reader@example.net' }), CHROME);
    await hit(openUrl(s.ctx, { messageId: a, recipient: 'other@example.net' }), IPHONE);
    const link = { messageId: a, recipient: 'reader@example.net', link: 'https://example.org/a', location: 'HTML' as const };
    await hit(clickUrl(s.ctx, link), CHROME);
    await hit(clickUrl(s.ctx, link), CHROME);
    await hit(clickUrl(s.ctx, { ...link, link: 'https://example.org/b', location: 'Text' }), IPHONE);
    // 10 March (Moscow): an untagged send on the broadcast stream, delivered, and a spam complaint about it.
    s.clock.advance(2 * 60_000);
    const c = await send({ MessageStream: 'broadcast' });
    await s.drain();
    // The complaint arrives as an ARF report (RFC 5965) at the bounce listener, addressed to the VERP.
    const rcpt = await s.ctx.db.selectFrom('message_recipients').select(['id', 'email']).where('message_id', '=', c).executeTakeFirstOrThrow();
    const verp = encodeVerp(s.ctx.secrets, { messageId: c, recipientId: rcpt.id }, s.config.returnPathDomain);
    const arf = loadFixture('arf-yahoo-abuse.eml', { recipient: rcpt.email, verp, messageId: c });
    assert.ok((await deliverReport(s, verp, arf)).ok);
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('totals every event of all time', async () => {
    const r = await get('/stats/outbound');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      Sent: 3,
      Bounced: 1,
      SMTPApiErrors: 0,
      BounceRate: 33.33,
      SpamComplaints: 1,
      SpamComplaintsRate: 33.33,
      Opens: 3,
      UniqueOpens: 2,
      TotalClicks: 3,
      UniqueLinksClicked: 2,
      TotalTrackedLinksSent: 1, // the one tracked link of the delivered copy of the first send
      Tracked: 1,
      WithLinkTracking: 1,
      WithOpenTracking: 1,
      WithClientRecorded: 2,
      WithPlatformRecorded: 2,
      WithReadTimeRecorded: 0,
    });
  });

  it('splits days at Moscow midnight and filters by date, tag and stream', async () => {
    assert.deepEqual((await get('/stats/outbound/sends')).body, {
      Days: [
        { Date: '2026-03-09', Sent: 2 },
        { Date: '2026-03-10', Sent: 1 },
      ],
      Sent: 3,
    });
    assert.deepEqual((await get('/stats/outbound/sends?fromDate=2026-03-10&toDate=2026-03-10')).body, { Days: [{ Date: '2026-03-10', Sent: 1 }], Sent: 1 });
    assert.deepEqual((await get('/stats/outbound/sends?todate=2026-03-09')).body.Sent, 2);
    assert.equal((await get('/stats/outbound?tag=welcome')).body.Sent, 2);
    assert.equal((await get('/stats/outbound?messagestream=broadcast')).body.Sent, 1);
    assert.equal((await get('/stats/outbound?messagestream=broadcast')).body.SpamComplaints, 1);
    const empty = await get('/stats/outbound/opens?fromdate=2027-01-01');
    assert.deepEqual(empty.body, { Days: [], Opens: 0, Unique: 0 }, 'totals are present even without days');
    assert.equal((await get('/stats/outbound?fromdate=yesterday')).status, 422);
  });

  it('answers each day series', async () => {
    // A day carries every fixed key of its series, zero when nothing happened (the official Python client
    // requires each of them in every day of bounces, platforms and click location, issue 27).
    const bounceKeys = { HardBounce: 1, SMTPApiError: 0, SoftBounce: 0, Transient: 0 };
    assert.deepEqual((await get('/stats/outbound/bounces')).body, { Days: [{ Date: '2026-03-09', ...bounceKeys }], ...bounceKeys });
    assert.deepEqual((await get('/stats/outbound/spam')).body, { Days: [{ Date: '2026-03-10', SpamComplaint: 1 }], SpamComplaint: 1 });
    assert.deepEqual((await get('/stats/outbound/tracked')).body, { Days: [{ Date: '2026-03-09', Tracked: 1 }], Tracked: 1 });
    assert.deepEqual((await get('/stats/outbound/opens')).body, { Days: [{ Date: '2026-03-09', Opens: 3, Unique: 2 }], Opens: 3, Unique: 2 });
    assert.deepEqual((await get('/stats/outbound/clicks')).body, { Days: [{ Date: '2026-03-09', Clicks: 3, Unique: 2 }], Clicks: 3, Unique: 2 });
    const platforms = (await get('/stats/outbound/opens/platforms')).body;
    assert.deepEqual(platforms, { Days: [{ Date: '2026-03-09', Desktop: 1, WebMail: 0, Mobile: 1, Unknown: 0 }], Desktop: 1, WebMail: 0, Mobile: 1, Unknown: 0 });
    const location = (await get('/stats/outbound/clicks/location')).body;
    assert.deepEqual(location, { Days: [{ Date: '2026-03-09', HTML: 2, Text: 1 }], HTML: 2, Text: 1 });
    const clickPlatforms = (await get('/stats/outbound/clicks/platforms')).body;
    assert.equal(clickPlatforms.Desktop + clickPlatforms.Mobile, 3);
    assert.deepEqual(Object.keys(clickPlatforms.Days[0]).sort(), ['Date', 'Desktop', 'Mobile', 'Unknown', 'WebMail']);
    const browsers = (await get('/stats/outbound/clicks/browserfamilies')).body;
    assert.equal(browsers.Days.length, 1);
    assert.equal(Object.entries(browsers).filter(([k]) => k !== 'Days').reduce((a, [, v]) => a + (v as number), 0), 3);
    const clients = (await get('/stats/outbound/opens/emailclients')).body;
    assert.equal(Object.entries(clients).filter(([k]) => k !== 'Days').reduce((a, [, v]) => a + (v as number), 0), 2, 'one client per unique open');
    assert.deepEqual((await get('/stats/outbound/opens/readtimes')).body, { Days: [] });
  });

  it('survives the messages it counts, and is per server', async () => {
    await s.ctx.db.deleteFrom('messages').where('id', 'in', ids).execute();
    assert.equal((await get('/stats/outbound')).body.Sent, 3);
    const other = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Quiet' } });
    const quiet = await s.request('GET', '/stats/outbound', { token: other.body.ApiTokens[0] });
    assert.equal(quiet.body.Sent, 0);
    assert.equal((await s.request('GET', '/stats/outbound', { token: null })).status, 401);
  });
});
