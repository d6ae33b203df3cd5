// Each recipient of a bulk request is an ordinary outbound message (issue 25): its copy carries the request's
// ReplyTo and headers (an entry's own header of the same name replacing the request's), is tracked (open pixel
// and rewritten links per recipient), fires the stream's webhooks, counts in the outbound statistics, and a Bcc
// recipient gets the copy without being named in it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { waitFor } from '../../helpers/wait.js';

const headerBlock = (raw: string) => raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
const headerValues = (raw: string, name: string) =>
  headerBlock(raw)
    .split(/\r?\n/)
    .filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((l) => l.slice(name.length + 1).trim());

describe('bulk: each recipient an ordinary message', () => {
  let s: TestService;
  let sink: SmtpSink;
  let hook: WebhookReceiver;
  before(async () => {
    sink = await startSmtpSink();
    hook = await startWebhookReceiver();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await addConfirmedSender(s, 'news@example.com');
  });
  after(async () => {
    await s.close();
    await sink.close();
    await hook.close();
  });

  it('sends tracked copies with the request’s ReplyTo and headers, fires Delivery webhooks and counts in the statistics', async () => {
    const wh = await s.request('POST', '/webhooks', { body: { Url: `${hook.url}/hook`, MessageStream: 'broadcast', Triggers: { Delivery: { Enabled: true } } } });
    assert.equal(wh.status, 200, wh.text);
    const res = await s.request('POST', '/email/bulk', {
      body: {
        From: 'news@example.com',
        Subject: 'Hi {{name}}',
        HtmlBody: '<p>Hi {{name}}, <a href="https://shop.example/sale">the sale</a></p>',
        TextBody: 'Hi {{name}}',
        ReplyTo: 'desk@example.com',
        Tag: 'spring-news',
        TrackOpens: true,
        TrackLinks: 'HtmlOnly',
        Headers: [
          { Name: 'X-Campaign', Value: 'spring' },
          { Name: 'X-List', Value: 'news' },
        ],
        Messages: [
          { To: 'ann@dest.example', Bcc: 'archive@dest.example', TemplateModel: { name: 'Ann' }, Headers: [{ Name: 'x-campaign', Value: 'spring-vip' }] },
          { To: 'bob@dest.example', TemplateModel: { name: 'Bob' } },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    await s.drain();
    const copies = sink.messages.filter((m) => m.raw.includes('Subject: Hi '));
    assert.deepEqual(copies.map((m) => m.to[0]).sort(), ['ann@dest.example', 'archive@dest.example', 'bob@dest.example']);
    for (const m of copies) {
      assert.deepEqual(headerValues(m.raw, 'Reply-To'), ['desk@example.com']);
      assert.deepEqual(headerValues(m.raw, 'X-List'), ['news']);
      assert.deepEqual(headerValues(m.raw, 'Bcc'), [], 'a Bcc recipient is not named in the copy');
      const html = (await PostalMime.parse(m.raw)).html ?? '';
      assert.match(html, /<img src="[^"]+\/t\/o\/[^"]+"/, 'open pixel');
      assert.match(html, /<a href="[^"]+\/t\/c\/[^"]+"/, 'tracked link');
      assert.doesNotMatch(html, /href="https:\/\/shop\.example/);
    }
    // An entry's header replaces the request's header of the same name (RFC 5322 1.2.2: names are case-insensitive).
    const ann = copies.find((m) => m.to[0] === 'ann@dest.example')!;
    const bob = copies.find((m) => m.to[0] === 'bob@dest.example')!;
    assert.deepEqual(headerValues(ann.raw, 'X-Campaign'), ['spring-vip']);
    assert.deepEqual(headerValues(bob.raw, 'X-Campaign'), ['spring']);

    await waitFor(() => hook.requests.length >= 3, { what: 'three Delivery webhooks' });
    assert.deepEqual(hook.requests.map((r) => [r.json.RecordType, r.json.MessageStream, r.json.Tag, r.json.Recipient]).sort(), [
      ['Delivery', 'broadcast', 'spring-news', 'ann@dest.example'],
      ['Delivery', 'broadcast', 'spring-news', 'archive@dest.example'],
      ['Delivery', 'broadcast', 'spring-news', 'bob@dest.example'],
    ]);
    const stats = await s.request('GET', '/stats/outbound?tag=spring-news');
    assert.equal(stats.body.Sent, 2, stats.text);
    assert.equal(stats.body.WithOpenTracking, 2);
  });
});
