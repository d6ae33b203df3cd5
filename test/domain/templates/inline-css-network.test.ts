// tier: unit
// A template's HTML is a stranger's input, and CSS can name remote resources: <link rel=stylesheet href>,
// @import url(...), url(...) in a rule or style attribute, <img src>. Inlining must read only the document it
// is given. juice's resource inliner (juiceResources, through web-resource-inliner) fetches such URLs;
// inline-css-task.ts imports juice's client entry, which has no fetching code. Here a loopback listener
// stands for the remote host: inlining documents that point at it must not open one connection to it, and
// the fetching module must not even be loaded.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { inlineCss } from '../../../src/domain/templates/inline-css.js';

describe('CSS inlining reaches no network', () => {
  let server: Server;
  let base = '';
  const connections: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      connections.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/css' }).end('p { color: green }');
    });
    server.on('connection', () => connections.push('(connection)'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('inlines <style> rules and leaves <link>, @import and url() pointing at a host unfetched', async () => {
    const html = [
      '<html><head>',
      `<link rel="stylesheet" href="${base}/link.css">`,
      `<link rel=stylesheet href=${base}/bare.css>`,
      `<style>@import url(${base}/import.css); @import "${base}/import2.css"; p { color: red; background: url(${base}/bg.png) }</style>`,
      '</head><body>',
      `<p style="background-image:url('${base}/attr.png')">a</p><img src="${base}/img.png">`,
      `<script src="${base}/s.js"></script>`,
      '</body></html>',
    ].join('');
    const out = inlineCss(html);
    assert.match(out, /<p style="[^"]*color: ?red/, 'the <style> rule is inlined');
    assert.doesNotMatch(out, /color: ?green/, 'nothing from the listener is in the output');
    // A fetch started by the inlining would have been sent before this probe: the listener sees the probe only.
    assert.equal((await fetch(`${base}/probe`, { headers: { connection: 'close' } })).status, 200);
    assert.deepEqual(connections, ['(connection)', '/probe']);
  });

  it('does not load juice\'s resource fetcher (web-resource-inliner) into the process', () => {
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    assert.ok(loaded.some((p) => /[/\\]juice[/\\]/.test(p)), 'juice was loaded by the inlining above');
    assert.deepEqual(loaded.filter((p) => /web-resource-inliner|[/\\]juice[/\\]index\.js$/.test(p)), []);
  });
});
