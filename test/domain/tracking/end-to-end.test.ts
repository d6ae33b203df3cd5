// The whole path: POST /email with tracking -> delivery over SMTP to a loopback peer -> the delivered MIME
// parsed as a mail client would -> its pixel and links fetched -> the records read back through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';

const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';

describe('tracking end to end through SMTP delivery', () => {
  let s: TestService;
  let sink: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}` } });
    await addConfirmedSender(s, 'news@example.com');
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('delivers tracked copies whose pixel and links feed the opens and clicks records', async () => {
    const r = await s.request('POST', '/email', {
      body: {
        From: 'news@example.com',
        To: 'ann@example.net, bob@example.org',
        Subject: 'Tracked',
        Tag: 'news',
        HtmlBody: '<html><body><p>Read <a href="https://shop.example/post?id=1&amp;ref=mail">the post</a> or <a href="mailto:news@example.com">reply</a>.</p></body></html>',
        TextBody: 'Read the post: https://shop.example/post?id=1',
        TrackOpens: true,
        TrackLinks: 'HtmlAndText',
      },
    });
    assert.equal(r.status, 200, r.text);
    const id = r.body.MessageID as string;
    await s.drain();
    await waitFor(() => sink.messages.length === 2, { what: 'two delivered copies' });

    const copies = new Map<string, { html: string; text: string }>();
    for (const m of sink.messages) {
      const parsed = await PostalMime.parse(m.raw);
      copies.set(m.to[0], { html: parsed.html ?? '', text: parsed.text ?? '' });
    }
    const ann = copies.get('ann@example.net')!;
    const bob = copies.get('bob@example.org')!;
    const pixelOf = (html: string) => /<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1];
    const linksOf = (html: string) => [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    assert.notEqual(pixelOf(ann.html), pixelOf(bob.html), 'each recipient has its own pixel');
    assert.deepEqual(linksOf(ann.html).map((l) => l.includes('/t/c/')), [true, false], 'mailto stays as it is');
    const textLink = /(https?:\/\/\S+\/t\/c\/\S+)/.exec(ann.text)![1];

    const fetchPath = (url: string) => fetch(s.url + new URL(url).pathname, { redirect: 'manual', headers: { 'user-agent': UA } });
    for (let i = 0; i < 2; i++) assert.equal((await fetchPath(pixelOf(ann.html))).status, 200);
    const click = await fetchPath(linksOf(ann.html)[0]);
    assert.equal(click.status, 302);
    assert.equal(click.headers.get('location'), 'https://shop.example/post?id=1&ref=mail');
    assert.equal((await fetchPath(textLink)).headers.get('location'), 'https://shop.example/post?id=1');

    const opens = await s.request('GET', `/messages/opens/${id}?count=10&offset=0`);
    assert.equal(opens.body.TotalCount, 1, opens.text);
    assert.equal(opens.body.Opens[0].Recipient, 'ann@example.net');
    assert.equal(opens.body.Opens[0].Tag, 'news');
    assert.equal(opens.body.Opens[0].OS.Family, 'macOS');
    const clicks = await s.request('GET', `/messages/clicks?count=10&offset=0&recipient=ann@example.net`);
    assert.deepEqual(
      clicks.body.Clicks.map((c: any) => [c.OriginalLink, c.ClickLocation]).sort(),
      [
        ['https://shop.example/post?id=1&ref=mail', 'HTML'],
        ['https://shop.example/post?id=1', 'Text'],
      ],
    );
    const details = await s.request('GET', `/messages/${id}/details`);
    const types = details.body.MessageEvents.map((e: any) => e.Type);
    assert.deepEqual(types.filter((t: string) => t === 'Delivered').length, 2, JSON.stringify(types));
    assert.deepEqual(types.filter((t: string) => t === 'Opened').length, 2);
    assert.deepEqual(types.filter((t: string) => t === 'LinkClicked').length, 2);
    const times = details.body.MessageEvents.map((e: any) => Date.parse(e.ReceivedAt));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'events in time order');
    const dump = await s.request('GET', `/messages/${id}/dump`);
    assert.match(dump.body.Body, /Subject: Tracked/);
    assert.deepEqual((await s.request('GET', '/messages?count=10&offset=0&status=sent')).body.Messages.map((m: any) => m.MessageID), [id]);
  });

  it("tracks by the server's settings when the message does not say", async () => {
    assert.equal((await s.request('PUT', '/server', { body: { TrackOpens: true, TrackLinks: 'HtmlOnly' } })).status, 200);
    sink.messages.length = 0;
    const r = await s.request('POST', '/email', {
      body: { From: 'news@example.com', To: 'cat@example.net', Subject: 'Defaults', HtmlBody: '<p><a href="https://shop.example/x">x</a></p>', TextBody: 'https://shop.example/x' },
    });
    assert.equal(r.status, 200, r.text);
    await s.drain();
    await waitFor(() => sink.messages.length === 1, { what: 'the delivered copy' });
    const parsed = await PostalMime.parse(sink.messages[0].raw);
    assert.match(parsed.html ?? '', /<img src="[^"]+\/t\/o\//);
    assert.match(parsed.html ?? '', /<a href="[^"]+\/t\/c\//);
    assert.equal(parsed.text?.trim(), 'https://shop.example/x', 'HtmlOnly leaves the text part alone');
    const item = (await s.request('GET', `/messages/${r.body.MessageID}/details`)).body;
    assert.deepEqual([item.TrackOpens, item.TrackLinks], [true, 'HtmlOnly']);
  });
});
