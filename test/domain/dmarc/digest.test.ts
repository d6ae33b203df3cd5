// The weekly DMARC digest (issue 26): for a domain with reports in the past week, one DmarcDigest webhook per
// URL of the account's servers' webhooks that have the Bounce trigger on (none to the others), delivered
// over real HTTP, and one system mail per console admin delivered to the relay (a real SMTP sink).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendWeeklyDigests } from '../../../src/domain/dmarc/digest.js';
import { takeInDmarc } from '../../../src/domain/dmarc/store.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { ADMIN, addUsers, VIEWER } from '../../http/console/helpers.js';
import { xmlBodyMail } from './helpers.js';
import { reportXmlOf } from './reports.js';

describe('DMARC weekly digest', () => {
  let s: TestService;
  let sink: SmtpSink;
  let bounceHooks: WebhookReceiver;
  let otherHooks: WebhookReceiver;
  let id = 0;

  before(async () => {
    sink = await startSmtpSink();
    bounceHooks = await startWebhookReceiver();
    otherHooks = await startWebhookReceiver();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true', MAILROOM_DMARC_OWN_SOURCES: '192.0.2.0/24' } });
    await addUsers(s);
    id = (await s.request('POST', '/domains', { accountToken: s.accountToken, body: { Name: 'example.com' } })).body.ID;
    for (const [url, triggers] of [[bounceHooks.url, { Bounce: { Enabled: true } }], [`${bounceHooks.url}`, { Bounce: { Enabled: true } }], [otherHooks.url, { Delivery: { Enabled: true } }]] as const) {
      const stream = url === otherHooks.url ? 'outbound' : undefined;
      const r = await s.request('POST', '/webhooks', { body: { Url: url, Triggers: triggers, ...(stream ? { MessageStream: stream } : {}) } });
      assert.equal(r.status, 200, r.text);
    }
    s.clock.freeze('2024-11-28T06:00:00Z');
  });
  after(async () => {
    await s.close();
    await sink.close();
    await bounceHooks.close();
    await otherHooks.close();
  });

  it('posts one DmarcDigest per webhook URL with the Bounce trigger and mails the admins', async () => {
    const target = [{ address: 'dmarc@inbound.bounces.localhost', domainId: id }];
    // Two days of the past week (Nov 21-27), and one report before it that the digest leaves out.
    for (const [day, rid] of [[22, 'a'], [25, 'b'], [10, 'old']] as const) {
      const xml = reportXmlOf({ records: 10, reportId: rid, begin: Date.UTC(2024, 10, day) / 1000 });
      await takeInDmarc(s.ctx, Buffer.from(xmlBodyMail(xml)), '127.0.0.1', target);
    }
    assert.equal(await sendWeeklyDigests(s.ctx, s.clock.now()), 1);
    await s.drain();
    const digests = bounceHooks.requests.filter((r) => r.json?.RecordType === 'DmarcDigest');
    assert.equal(digests.length, 1, 'one per URL, however many webhooks share it');
    const g = digests[0].json;
    assert.equal(g.Domain, 'example.com');
    assert.equal(g.DomainID, id);
    assert.deepEqual([g.From, g.To], ['2024-11-21', '2024-11-27']);
    assert.deepEqual([g.Reports, g.Total, g.Aligned, g.Failing, g.PassRate], [2, 60, 30, 30, 50]);
    assert.equal(g.FailingFromOtherSources, 30);
    assert.ok(g.Sources.length > 0 && g.Sources.length <= 10);
    assert.ok(g.Sources.some((x: any) => x.OwnSource === true));
    assert.equal(otherHooks.requests.length, 0, 'a webhook without the Bounce trigger gets none');
    const mails = sink.messages.filter((m) => /DMARC weekly digest for example\.com/.test(m.raw));
    assert.deepEqual(mails.map((m) => m.to).flat(), [ADMIN.email]);
    assert.ok(!mails.some((m) => m.to.includes(VIEWER.email)));
    assert.match(mails[0].raw, /60 messages reported by receivers in 2 reports: 30 passed DMARC \(50%\)/);
  });

  it('sends nothing for a week without reports', async () => {
    s.clock.freeze('2025-02-01T06:00:00Z');
    assert.equal(await sendWeeklyDigests(s.ctx, s.clock.now()), 0);
  });
});
