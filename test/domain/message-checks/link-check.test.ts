// tier: unit
// The link check against real HTTP servers on loopback (allowed here as MAILROOM_WEBHOOK_ALLOW_PRIVATE=true
// allows them), and the address guard of the default configuration refusing private targets.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { MailpitLinkCheckResponse } from 'mailpit-api';
import { createLinkChecker, LINK_CHECK_LIMITS, type LinkCheckLimits } from '../../../src/domain/message-checks/link-check.js';
import { extractLinks } from '../../../src/domain/message-checks/link-extract.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../helpers/timing.js';

type Ctx = Parameters<typeof createLinkChecker>[0];
const ctxWith = (allowPrivate: boolean): Ctx => ({ config: { webhookAllowPrivate: allowPrivate, dnsServers: null }, dns: null }) as unknown as Ctx;

describe('link check', () => {
  let server: http.Server;
  let base: string;
  const methods: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const held: http.ServerResponse[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      methods.push(`${req.method} ${path}`);
      if (path === '/hang') return void held.push(res);
      if (path.startsWith('/slow/')) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // Held a moment (server behaviour, not a wait in the test), so that requests overlap if the checker lets them.
        setTimeout(() => {
          inFlight--;
          res.end();
        }, 20);
        return;
      }
      if (path === '/ok') return void res.end('fine');
      if (path === '/missing') return void res.writeHead(404).end();
      if (path === '/no-head') return void res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
      if (path === '/r1') return void res.writeHead(301, { location: '/r2' }).end();
      if (path === '/r2') return void res.writeHead(302, { location: `${base}/ok` }).end();
      if (path === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      if (path === '/to-gone') return void res.writeHead(302, { location: '/missing' }).end();
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const r of held) r.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('takes links from the HTML (a, stylesheet, img) and the text, unique, http(s) only', () => {
    const links = extractLinks(
      '<a href="https://a.example/x?b=1&amp;c=2">x</a><a href="mailto:x@y">m</a><a href="#top">t</a><link rel="stylesheet" href="https://a.example/s.css"><img src="https://a.example/i.png"><a href="https://a.example/x?b=1&c=2">dup</a>',
      'See https://b.example/page. Or <https://c.example/a\nb> and ftp://no.example',
    );
    assert.deepEqual(links, ['https://a.example/x?b=1&c=2', 'https://a.example/s.css', 'https://a.example/i.png', 'https://b.example/page', 'https://c.example/ab']);
  });

  it('reports each status (200, 404, HEAD refused then GET), and redirects as they are without follow', async () => {
    const checker = createLinkChecker(ctxWith(true));
    try {
      const r: MailpitLinkCheckResponse = await checker.check(`<a href="${base}/ok">a</a><a href="${base}/missing">b</a><a href="${base}/no-head">c</a><a href="${base}/r1">d</a>`, '', false);
      assert.deepEqual(r.Links, [
        { URL: `${base}/ok`, StatusCode: 200, Status: 'OK' },
        { URL: `${base}/missing`, StatusCode: 404, Status: 'Not Found' },
        { URL: `${base}/no-head`, StatusCode: 200, Status: 'OK' },
        { URL: `${base}/r1`, StatusCode: 301, Status: 'Moved Permanently' },
      ]);
      assert.equal(r.Errors, 1);
      assert.ok(methods.includes('HEAD /ok') && !methods.includes('GET /ok'), 'HEAD is enough when it is answered');
      assert.ok(methods.includes('HEAD /no-head') && methods.includes('GET /no-head'), 'GET after HEAD was refused');
    } finally {
      checker.close();
    }
  });

  it('follows a redirect chain to its end with follow, and stops a loop', async () => {
    const checker = createLinkChecker(ctxWith(true));
    try {
      const r = await checker.check('', `${base}/r1 ${base}/to-gone ${base}/loop`, true);
      assert.deepEqual(r.Links, [
        { URL: `${base}/r1`, StatusCode: 200, Status: 'OK' },
        { URL: `${base}/to-gone`, StatusCode: 404, Status: 'Not Found' },
        { URL: `${base}/loop`, StatusCode: 0, Status: 'too many redirects' },
      ]);
      assert.equal(r.Errors, 2);
    } finally {
      checker.close();
    }
  });

  it('bounds a request that never answers, and a refused connection' + TIMED, LEFT_TO_PERF, async () => {
    const limits: LinkCheckLimits = { ...LINK_CHECK_LIMITS, requestMs: 300, totalMs: 5_000 };
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const checker = createLinkChecker(ctxWith(true), limits);
    try {
      const started = Date.now();
      const r = await checker.check(`<a href="${base}/hang">h</a><a href="http://127.0.0.1:${deadPort}/">d</a>`, '', false);
      assertWithin(Date.now() - started, 3_000, 'the deadline ended the hanging request');
      assert.deepEqual(r.Links, [
        { URL: `${base}/hang`, StatusCode: 0, Status: 'timeout awaiting response headers' },
        { URL: `http://127.0.0.1:${deadPort}/`, StatusCode: 0, Status: 'connection refused' },
      ]);
      assert.equal(r.Errors, 2);
    } finally {
      checker.close();
    }
  });

  it('checks at most two links of a host at once and at most maxLinks links', async () => {
    const checker = createLinkChecker(ctxWith(true), { ...LINK_CHECK_LIMITS, maxLinks: 12 });
    try {
      const html = Array.from({ length: 20 }, (_, i) => `<a href="${base}/slow/${i}">${i}</a>`).join('');
      const r = await checker.check(html, '', false);
      assert.equal(r.Links.length, 12);
      assert.equal(maxInFlight, 2, 'two at once, never more');
    } finally {
      checker.close();
    }
  });

  it('refuses private and loopback targets in the default configuration (451, as Mailpit), without connecting', async () => {
    const checker = createLinkChecker(ctxWith(false));
    const before = methods.length;
    try {
      const r = await checker.check(`<a href="${base}/ok">l</a><a href="http://10.0.0.1/">p</a><img src="http://169.254.169.254/latest/meta-data">`, 'http://localhost:1/x', false);
      for (const l of r.Links) assert.deepEqual({ StatusCode: l.StatusCode, Status: l.Status }, { StatusCode: 451, Status: 'Blocked private/reserved address' }, l.URL);
      assert.equal(r.Links.length, 4);
      assert.equal(r.Errors, 4);
      assert.equal(methods.length, before, 'no request reached the loopback server');
    } finally {
      checker.close();
    }
  });
});
