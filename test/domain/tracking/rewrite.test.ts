// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppContext } from '../../../src/context.js';
import { createSecrets } from '../../../src/infra/crypto/secrets.js';
import { applyTracking } from '../../../src/domain/tracking/rewrite.js';
import { readClickToken, readOpenToken } from '../../../src/domain/tracking/tokens.js';
import { parseUserAgent } from '../../../src/domain/tracking/user-agent.js';
import { AGENTS } from '../../fixtures/user-agents.js';

// applyTracking needs only the public URL and the real signing keys.
const ctx = { config: { publicUrl: 'https://mail.example.test' }, secrets: createSecrets('a-test-master-key-a-test-master-key-0123') } as unknown as AppContext;
const base = { messageId: 'm-1', recipient: 'Ann@example.net', trackOpens: false, trackLinks: 'HtmlAndText' };
const TRACK = /https:\/\/mail\.example\.test\/t\/c\/([A-Za-z0-9_-]+)/g;
const clicks = (s: string) => [...s.matchAll(TRACK)].map((m) => readClickToken(ctx, m[1]));

describe('applyTracking', () => {
  it('rewrites http(s) links of the HTML part to signed per-recipient URLs carrying the original', () => {
    const html = `<p><a href="https://shop.example/a?x=1&amp;y=2">A</a> <A class='b' HREF='http://shop.example/b'>B</A> <a data-x=">" href=https://shop.example/c>C</a></p>`;
    const out = applyTracking(ctx, { ...base, html, text: null });
    assert.deepEqual(
      clicks(out.html!).map((t) => t && [t.link, t.location, t.recipient, t.messageId]),
      [
        ['https://shop.example/a?x=1&y=2', 'HTML', 'Ann@example.net', 'm-1'],
        ['http://shop.example/b', 'HTML', 'Ann@example.net', 'm-1'],
        ['https://shop.example/c', 'HTML', 'Ann@example.net', 'm-1'],
      ],
    );
    assert.ok(out.html!.includes(`class='b'`) && out.html!.includes('>B</A>'), 'the rest of the tag is kept');
  });

  it('leaves a link whose visible text is a URL or host name untracked, so text and target never disagree', () => {
    const html = [
      '<a href="https://shop.example.com/account">https://shop.example.com/account</a>',
      '<a href="https://shop.example.com/a"> <b>shop.example.com/a</b> </a>',
      '<a href="https://shop.example.com/">www.shop.example.com</a>',
      '<a href="https://shop.example.com/x">http&#58;//shop.example.com/x</a>',
      '<a href="https://shop.example.com/y">Your account</a>',
      '<a href="https://shop.example.com/z">Version 2.0</a>',
      '<a href="https://shop.example.com/q"><img src="cid:logo"></a>',
    ].join('\n');
    const out = applyTracking(ctx, { ...base, html, text: null });
    assert.deepEqual(clicks(out.html!).map((t) => t?.link), ['https://shop.example.com/y', 'https://shop.example.com/z', 'https://shop.example.com/q']);
    for (const keep of html.split('\n').slice(0, 4)) assert.ok(out.html!.includes(keep), keep);
  });

  it('leaves mailto:, tel:, anchors, relative, unsubscribe and own links alone', () => {
    const html = [
      '<a href="mailto:help@shop.example">m</a>',
      '<a href="tel:+15550100">t</a>',
      '<a href="#top">a</a>',
      '<a href="/relative">r</a>',
      '<a href="javascript:alert(1)">j</a>',
      '<a href="https://shop.example/Unsubscribe?u=1">u</a>',
      '<a href="https://mail.example.test/unsubscribe/xyz">own</a>',
      '<a data-pm-no-track href="https://shop.example/keep">k</a>',
      '<a data-href="https://shop.example/d">no href</a>',
      `<a href="https://shop.example/${'x'.repeat(2100)}">long</a>`,
    ].join('');
    assert.equal(applyTracking(ctx, { ...base, html, text: null }).html, html);
  });

  it('rewrites text links per TrackLinks, without trailing punctuation', () => {
    const text = 'Order: https://shop.example/o/1. See (https://shop.example/help) or https://en.wikipedia.org/wiki/Foo_(bar), mail help@shop.example';
    const out = applyTracking(ctx, { ...base, html: '<a href="https://shop.example/h">h</a>', text, trackLinks: 'TextOnly' });
    assert.equal(out.html, '<a href="https://shop.example/h">h</a>');
    assert.deepEqual(
      clicks(out.text!).map((t) => t && [t.link, t.location]),
      [
        ['https://shop.example/o/1', 'Text'],
        ['https://shop.example/help', 'Text'],
        ['https://en.wikipedia.org/wiki/Foo_(bar)', 'Text'],
      ],
    );
    assert.match(out.text!, /\/t\/c\/[A-Za-z0-9_.-]+\. See \(https:\/\/mail\.example\.test\/t\/c\/[A-Za-z0-9_.-]+\) or /);
    const htmlOnly = applyTracking(ctx, { ...base, html: '<a href="https://shop.example/h">h</a>', text, trackLinks: 'HtmlOnly' });
    assert.equal(htmlOnly.text, text);
    assert.equal(clicks(htmlOnly.html!).length, 1);
    const none = applyTracking(ctx, { ...base, html: '<a href="https://shop.example/h">h</a>', text, trackLinks: 'None' });
    assert.deepEqual(none, { html: '<a href="https://shop.example/h">h</a>', text });
  });

  it('puts the open pixel before </body>, or at the end, and only with TrackOpens', () => {
    const withBody = applyTracking(ctx, { ...base, trackOpens: true, trackLinks: 'None', html: '<html><body><p>x</p></body></html>', text: 't' });
    assert.match(withBody.html!, /^<html><body><p>x<\/p><img src="https:\/\/mail\.example\.test\/t\/o\/([A-Za-z0-9_.-]+)" width="1" height="1"[^>]*\/><\/body><\/html>$/);
    const token = /\/t\/o\/([A-Za-z0-9_.-]+)"/.exec(withBody.html!)![1];
    assert.deepEqual(readOpenToken(ctx, token), { messageId: 'm-1', recipient: 'Ann@example.net' });
    assert.equal(readClickToken(ctx, token), null, 'an open token is no click token');
    assert.match(applyTracking(ctx, { ...base, trackOpens: true, html: '<p>no body</p>', text: null }).html!, /^<p>no body<\/p><img /);
    assert.equal(applyTracking(ctx, { ...base, trackOpens: false, trackLinks: 'None', html: '<p>x</p>', text: null }).html, '<p>x</p>');
    assert.deepEqual(applyTracking(ctx, { ...base, trackOpens: true, html: null, text: 'plain' }), { html: null, text: 'plain' });
  });

  it('gives each recipient its own URLs', () => {
    const html = '<a href="https://shop.example/a">a</a>';
    const a = applyTracking(ctx, { ...base, html, text: null, trackOpens: true });
    const b = applyTracking(ctx, { ...base, recipient: 'bob@example.net', html, text: null, trackOpens: true });
    assert.notEqual(a.html, b.html);
    assert.equal(clicks(b.html!)[0]?.recipient, 'bob@example.net');
  });
});

describe('parseUserAgent', () => {
  it('names client, OS and platform', () => {
    const chrome = parseUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36');
    assert.deepEqual(chrome.client, { Name: 'Chrome 120.0.0.0', Company: 'Google', Family: 'Chrome' });
    assert.equal(chrome.os.Family, 'Windows');
    assert.equal(chrome.os.Company, 'Microsoft Corporation');
    assert.equal(chrome.platform, 'Desktop');
    const outlook = parseUserAgent('Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.4266; Pro)');
    assert.equal(outlook.client.Family, 'Microsoft Outlook');
    assert.equal(parseUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148').platform, 'Mobile');
    const gmail = parseUserAgent('Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)');
    assert.deepEqual([gmail.client.Name, gmail.platform], ['Gmail', 'WebMail']);
    assert.deepEqual(parseUserAgent(''), { client: { Name: 'Unknown', Company: 'Unknown', Family: 'Unknown' }, os: { Name: 'Unknown', Company: 'Unknown', Family: 'Unknown' }, platform: 'Unknown' });
  });

  it('classifies real e-mail clients, web mail proxies, browsers and bots', () => {
    const wrong = AGENTS.map((a) => {
      const r = parseUserAgent(a.ua);
      return { ua: a.ua, got: [r.client.Family, r.os.Family, r.platform], want: [a.client, a.os, a.platform] };
    }).filter((c) => c.got.join('|') !== c.want.join('|'));
    assert.deepEqual(wrong, []);
    assert.ok(AGENTS.length >= 35);
  });

  it('names the maker of the e-mail clients', () => {
    const company = (ua: string) => parseUserAgent(ua).client.Company;
    assert.equal(company('Outlook-Android/2.0'), 'Microsoft Corporation');
    assert.equal(company('Mozilla/5.0 (X11; Linux x86_64; rv:102.0) Gecko/20100101 Thunderbird/102.15.1'), 'Mozilla');
    assert.equal(company('Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36'), 'Google');
  });
});
