import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { applyTracking } from '../../../src/domain/tracking/rewrite.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { deleteMessagesCascading } from '../../../src/infra/db/partitions-cascade.js';

const THUNDERBIRD = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:115.0) Gecko/20100101 Thunderbird/115.3.1';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const LONG = `https://shop.example/deep?${'q=1&'.repeat(150)}end=1`;
const HTML = `<html><body><a href="https://shop.example/a?x=1&amp;y=2">A</a> <a href="${LONG}">L</a> <a href="mailto:x@shop.example">m</a></body></html>`;
const TEXT = 'Your order: https://shop.example/order/7.';

describe('tracking endpoints, hit as a mail client would', () => {
  let s: TestService;
  let messageId: string;
  const urls: Record<string, { pixel: string; clicks: string[]; textClick: string }> = {};
  /** Fetches a tracking URL at the service (the public URL's origin swapped for the test listener). */
  const hit = (url: string, o: { ua?: string; method?: string } = {}) =>
    fetch(s.url + new URL(url).pathname, { method: o.method ?? 'GET', redirect: 'manual', headers: o.ua === undefined ? {} : { 'user-agent': o.ua } });
  const count = async (table: 'opens' | 'clicks') => Number((await s.ctx.db.selectFrom(table).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const get = (path: string, token?: string) => s.request('GET', path, { token });

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'shop@example.com');
    const r = await s.request('POST', '/email', {
      body: { From: 'shop@example.com', To: 'ann@example.net', Cc: 'bob@example.net', Subject: 'Order', Tag: 'orders', HtmlBody: HTML, TextBody: TEXT, TrackOpens: true, TrackLinks: 'HtmlAndText', Metadata: { order: '7' } },
    });
    assert.equal(r.status, 200, r.text);
    messageId = r.body.MessageID;
    for (const recipient of ['ann@example.net', 'bob@example.net']) {
      const out = applyTracking(s.ctx, { messageId, recipient, html: HTML, text: TEXT, trackOpens: true, trackLinks: 'HtmlAndText' });
      urls[recipient] = {
        pixel: /<img src="([^"]+)"/.exec(out.html!)![1],
        clicks: [...out.html!.matchAll(/<a href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => m[1]),
        textClick: /(https?:\/\/\S+\/t\/c\/[A-Za-z0-9_-]+)/.exec(out.text!)![1],
      };
    }
  });
  after(() => s.close());

  it('answers the pixel with an uncacheable 1x1 GIF and stores the first open per recipient', async () => {
    for (const ua of [THUNDERBIRD, IPHONE]) {
      const r = await hit(urls['ann@example.net'].pixel, { ua });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'image/gif');
      assert.match(r.headers.get('cache-control') ?? '', /no-store/);
      const gif = Buffer.from(await r.arrayBuffer());
      assert.equal(gif.subarray(0, 6).toString(), 'GIF89a');
      assert.deepEqual([gif.readUInt16LE(6), gif.readUInt16LE(8)], [1, 1]);
    }
    await hit(urls['bob@example.net'].pixel, { ua: IPHONE });
    assert.equal(await count('opens'), 2);

    const opens = await get('/messages/opens?count=10&offset=0');
    assert.equal(opens.status, 200, opens.text);
    assert.equal(opens.body.TotalCount, 2);
    const ann = opens.body.Opens.find((o: any) => o.Recipient === 'ann@example.net');
    assert.equal(ann.MessageID, messageId);
    assert.equal(ann.MessageStream, 'outbound');
    assert.equal(ann.Tag, 'orders');
    assert.equal(ann.FirstOpen, true);
    assert.equal(ann.UserAgent, THUNDERBIRD);
    assert.deepEqual(ann.Client, { Name: 'Thunderbird 115.3.1', Company: 'Mozilla', Family: 'Thunderbird' });
    assert.equal(ann.OS.Family, 'Windows');
    assert.equal(ann.Platform, 'Desktop');
    assert.deepEqual(ann.Geo, {});
    assert.equal(ann.ReadSeconds, 0);
    assert.equal((await get('/messages/opens?count=10&offset=0&recipient=ANN@example.net')).body.TotalCount, 1);
    assert.equal((await get('/messages/opens?count=10&offset=0&platform=Mobile')).body.Opens[0].Recipient, 'bob@example.net');
    assert.equal((await get('/messages/opens?count=10&offset=0&tag=other')).body.TotalCount, 0);
    assert.equal((await get(`/messages/opens/${messageId}?count=10&offset=0`)).body.TotalCount, 2);
    assert.equal((await get('/messages/outbound/opens?count=1&offset=0')).body.Opens.length, 1);
    assert.equal((await get('/messages/opens?count=1&offset=9999')).status, 200);
    for (const q of ['count=501&offset=0', 'count=1&offset=10000', 'count=0&offset=0', 'offset=0']) {
      assert.equal((await get(`/messages/opens?${q}`)).status, 422, q);
      assert.equal((await get(`/messages/clicks?${q}`)).status, 422, q);
      assert.equal((await get(`/messages/opens/${messageId}?${q}`)).status, 422, q);
    }

    // Every open is an event (FirstOpen and Platform are the opens API's, above); the message details carry
    // the hosted service's Opened event: Details holds only its Summary, a string naming the client.
    const details = await get(`/messages/${messageId}/details`);
    const opened = details.body.MessageEvents.filter((e: any) => e.Type === 'Opened');
    assert.deepEqual(
      opened.map((e: any) => [e.Recipient, Object.keys(e.Details)]),
      [
        ['ann@example.net', ['Summary']],
        ['ann@example.net', ['Summary']],
        ['bob@example.net', ['Summary']],
      ],
    );
    assert.match(opened[0].Details.Summary, /^Email opened with Thunderbird/);
  });

  it('answers a pixel even for a broken token, and records nothing', async () => {
    const events = async () => (await get(`/messages/${messageId}/details`)).body.MessageEvents.length;
    const before = await events();
    const good = new URL(urls['ann@example.net'].pixel).pathname;
    const forged = good.slice(0, -3) + (good.endsWith('AAA') ? 'BBB' : 'AAA');
    for (const path of [forged, '/t/o/', '/t/o/garbage', '/t/o/a.b', `/t/o/${'x'.repeat(5000)}`, good.replace('/t/o/', '/t/o/%00')]) {
      const r = await fetch(s.url + path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers.get('content-type'), 'image/gif', path);
      await r.arrayBuffer();
    }
    // A click token is no pixel token.
    assert.equal((await hit(urls['ann@example.net'].clicks[0].replace('/t/c/', '/t/o/'))).status, 200);
    assert.equal(await events(), before);
    assert.equal(await count('opens'), 2);
  });

  it('redirects a click to the original link and stores one click per recipient and link', async () => {
    const first = await hit(urls['ann@example.net'].clicks[0], { ua: THUNDERBIRD });
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), 'https://shop.example/a?x=1&y=2');
    assert.equal((await hit(urls['ann@example.net'].clicks[0], { ua: IPHONE })).status, 302);
    const long = await hit(urls['ann@example.net'].clicks[1]);
    assert.equal(long.headers.get('location'), LONG);
    const text = await hit(urls['ann@example.net'].textClick, { ua: THUNDERBIRD });
    assert.equal(text.headers.get('location'), 'https://shop.example/order/7');
    // A HEAD from a link scanner is answered but not counted.
    assert.equal((await hit(urls['bob@example.net'].clicks[0], { method: 'HEAD' })).status, 302);
    assert.equal(await count('clicks'), 3);

    const clicks = await get('/messages/clicks?count=10&offset=0');
    assert.equal(clicks.body.TotalCount, 3);
    const byLink = new Map(clicks.body.Clicks.map((c: any) => [c.OriginalLink, c]));
    const a = byLink.get('https://shop.example/a?x=1&y=2') as any;
    assert.equal(a.ClickLocation, 'HTML');
    assert.equal(a.Recipient, 'ann@example.net');
    assert.equal(a.Client.Family, 'Thunderbird');
    assert.equal((byLink.get('https://shop.example/order/7') as any).ClickLocation, 'Text');
    assert.equal((await get(`/messages/clicks/${messageId}?count=2&offset=0`)).body.Clicks.length, 2);
    assert.equal((await get('/messages/outbound/clicks?count=10&offset=0&recipient=bob@example.net')).body.TotalCount, 0);
    const events = (await get(`/messages/${messageId}/details`)).body.MessageEvents.filter((e: any) => e.Type === 'LinkClicked');
    assert.equal(events.length, 4);
    assert.equal(events[0].Details.Link, 'https://shop.example/a?x=1&y=2');
    assert.equal(events[0].Details.ClickLocation, 'HTML');
  });

  it('never redirects for a forged or altered click token', async () => {
    const tok = new URL(urls['ann@example.net'].clicks[0]).pathname.slice('/t/c/'.length);
    const flipped = tok.slice(0, 20) + (tok[20] === 'A' ? 'B' : 'A') + tok.slice(21);
    // A token of the earlier signed form, with its MAC put on other data or cut short.
    const [data, mac] = s.ctx.secrets.sign('click', JSON.stringify([messageId, 'ann@example.net', 'https://shop.example/a?x=1&y=2', 'H'])).split('.');
    const evil = Buffer.from(JSON.stringify([messageId, 'ann@example.net', 'https://evil.example/', 'H'])).toString('base64url');
    const forgedPaths = [`/t/c/${evil}.${mac}`, `/t/c/${data}.${mac.slice(0, -2)}`, `/t/c/${flipped}`, `/t/c/${tok.slice(0, -4)}`, `/t/c/${tok.slice(0, 30)}`];
    for (const p of [...forgedPaths, '/t/c/', '/t/c/nonsense', new URL(urls['ann@example.net'].pixel).pathname.replace('/t/o/', '/t/c/')]) {
      const r = await fetch(s.url + p, { redirect: 'manual' });
      assert.equal(r.status, 404, p);
      assert.equal(r.headers.get('location'), null, p);
      assert.match(r.headers.get('content-type') ?? '', /text\/html/);
      await r.text();
    }
    assert.equal(await count('clicks'), 3);
  });

  it('makes opaque tokens, and still follows links sent with the earlier signed ones', async () => {
    for (const u of [urls['ann@example.net'].clicks[0], urls['ann@example.net'].pixel]) {
      const tok = u.slice(u.lastIndexOf('/') + 1);
      assert.doesNotMatch(tok, /\./);
      const decoded = Buffer.from(tok, 'base64url').toString('latin1');
      assert.ok(!decoded.includes('ann@example.net') && !decoded.includes('shop.example') && !decoded.includes(messageId), 'nothing readable');
    }
    const before = await count('clicks');
    // Minted as mail sent before carried it: base64url JSON with an HMAC.
    const old = s.ctx.secrets.sign('click', JSON.stringify([messageId, 'ann@example.net', 'https://shop.example/old-link', 'H']));
    const r = await fetch(`${s.url}/t/c/${old}`, { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://shop.example/old-link');
    await r.text();
    const pixel = await fetch(`${s.url}/t/o/${s.ctx.secrets.sign('open', JSON.stringify([messageId, 'ann@example.net']))}`);
    assert.equal(pixel.status, 200);
    await pixel.arrayBuffer();
    assert.equal(await count('clicks'), before + 1);
  });

  it('shows nothing of it to another server', async () => {
    const { token } = await createServer(s.ctx.db, { accountId: s.accountId, name: 'Elsewhere' }, s.clock.now());
    assert.equal((await get('/messages/opens?count=10&offset=0', token)).body.TotalCount, 0);
    assert.equal((await get('/messages/clicks?count=10&offset=0', token)).body.TotalCount, 0);
    assert.equal((await get(`/messages/opens/${messageId}?count=10&offset=0`, token)).body.ErrorCode, 701);
  });

  it('still answers once the message is gone, without recording', async () => {
    // As retention deletes it (on PostgreSQL the opens have no cascading foreign key: migration 0023).
    await deleteMessagesCascading(s.ctx.db, [messageId]);
    assert.equal((await hit(urls['bob@example.net'].pixel)).status, 200);
    const r = await hit(urls['bob@example.net'].clicks[0]);
    assert.equal(r.status, 302);
    assert.equal(await count('opens'), 0, 'records left with their message');
  });
});
