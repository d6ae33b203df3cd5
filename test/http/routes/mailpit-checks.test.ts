// Mailpit's html-check, link-check and sa-check over HTTP, called with the `mailpit-api` client, against a
// Sandbox server's messages: registerMailpitCheckRoutes inside a test plugin that authenticates as the
// Mailpit API does (HTTP Basic, a server token as the password). A real spamd scores the messages.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { MailpitClient } from 'mailpit-api';
import type { AppContext } from '../../../src/domain/app-context.js';
import { TokenResolver } from '../../../src/domain/tokens/token-resolver.js';
import { SPAM_NOT_CONFIGURED } from '../../../src/domain/message-checks/spam-check.js';
import { messageSource } from '../../../src/domain/message-checks/message-source.js';
import { registerMailpitCheckRoutes } from '../../../src/http/routes/mailpit/checks.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { GTUBE, spamdInstalled, startSpamd, type Spamd } from '../../helpers/spamd.js';

const FROM = 'news@example.com';
const noSpamd = spamdInstalled() ? false : 'spamd is not installed (scripts/setup.sh installs spamassassin)';

/** A stand-in for the Mailpit plugin: Basic auth with a server token selects the server. */
async function mailpitApp(ctx: AppContext): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  const tokens = new TokenResolver(ctx.db);
  const serverFor = async (req: FastifyRequest) => {
    const m = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!m) return null;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const t = await tokens.resolve(decoded.slice(decoded.indexOf(':') + 1));
    if (!t || t.kind !== 'server' || t.serverId === null) return null;
    const server = await ctx.db.selectFrom('servers').select('delivery_type').where('id', '=', t.serverId).executeTakeFirstOrThrow();
    return { id: t.serverId, sandbox: server.delivery_type === 'Sandbox' };
  };
  await app.register(async (scope) => registerMailpitCheckRoutes(scope, { ctx, serverFor }), { prefix: '/mailpit' });
  // The same routes without a spamd, as a process started without MAILROOM_SPAMD.
  await app.register(async (scope) => registerMailpitCheckRoutes(scope, { ctx: { ...ctx, config: { ...ctx.config, spamd: null } }, serverFor }), { prefix: '/nospamd' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

describe('Mailpit API: html-check, link-check, sa-check', () => {
  let s: TestService;
  let spamd: Spamd | null = null;
  let mp: { app: FastifyInstance; url: string };
  let target: http.Server;
  let targetBase: string;
  let sandboxToken: string;
  let client: MailpitClient;
  const ids: Record<string, string> = {};

  const send = async (at: string, body: Record<string, unknown>) => {
    // Distinct times: `latest` is the newest by reception.
    s.clock.freeze(at);
    const r = await s.request('POST', '/email', { body: { From: FROM, To: 'dev@example.net', Subject: 'Welcome', ...body }, token: sandboxToken });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };

  before(async () => {
    if (!noSpamd) spamd = await startSpamd();
    target = http.createServer((req, res) => res.writeHead(req.url === '/ok' ? 200 : 404).end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetBase = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true', ...(spamd ? { MAILROOM_SPAMD: spamd.address } : {}) } });
    await addConfirmedSender(s, FROM);
    const created = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'CI inbox', DeliveryType: 'Sandbox' } });
    assert.equal(created.status, 200, created.text);
    sandboxToken = created.body.ApiTokens[0];
    mp = await mailpitApp(s.ctx);
    client = new MailpitClient(`${mp.url}/mailpit`, { auth: { username: 'ci', password: sandboxToken } });
    ids.welcome = await send('2026-11-20T10:00:00Z', {
      HtmlBody: `<html><head><style>.cols{display:flex}</style></head><body><div class="cols"><a href="${targetBase}/ok">Start</a> <a href="${targetBase}/gone">Old</a></div><video src="x.mp4"></video></body></html>`,
      TextBody: `Start: ${targetBase}/ok`,
    });
    ids.spam = await send('2026-11-20T10:05:00Z', { TextBody: `Cheap pills\n${GTUBE}\n` });
  });
  after(async () => {
    await mp?.app.close();
    await s?.close();
    target?.closeAllConnections();
    await new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve()));
    await spamd?.stop();
  });

  it('html-check: the features the message uses, by id and as latest', async () => {
    const r = await client.htmlCheck(ids.welcome);
    const slugs = r.Warnings.map((w) => w.Slug);
    for (const slug of ['css-display-flex', 'html-video', 'html-style']) assert.ok(slugs.includes(slug), slug);
    assert.ok(r.Total.Supported < 100 && r.Total.Nodes > 0);
    // The newest message has no HTML: Mailpit's 400.
    await assert.rejects(client.htmlCheck(), /400 .*message does not contain HTML/);
  });

  it('link-check: each link of the HTML and text with its status', async () => {
    const r = await client.linkCheck(ids.welcome);
    assert.deepEqual(r, {
      Errors: 1,
      Links: [
        { URL: `${targetBase}/ok`, StatusCode: 200, Status: 'OK' },
        { URL: `${targetBase}/gone`, StatusCode: 404, Status: 'Not Found' },
      ],
    });
    assert.deepEqual(await client.linkCheck(ids.welcome, true), r);
  });

  it('sa-check: the spamd score and rules in Mailpit\'s shape', { skip: noSpamd }, async () => {
    const spam = await client.spamAssassinCheck(ids.spam);
    assert.equal(spam.IsSpam, true);
    assert.ok(spam.Score >= 1000, String(spam.Score));
    assert.equal(spam.Error, '');
    const gtube = spam.Rules!.find((x) => x.Name === 'GTUBE');
    assert.ok(gtube && gtube.Score === 1000 && /GTUBE|test/i.test(gtube.Description), JSON.stringify(spam.Rules));
    const ham = await client.spamAssassinCheck(ids.welcome);
    assert.equal(ham.IsSpam, false);
    assert.ok(ham.Score < 5);
    assert.ok(ham.Rules!.every((x) => typeof x.Name === 'string' && typeof x.Score === 'number' && typeof x.Description === 'string'));
    assert.deepEqual(Object.keys(ham).sort(), ['Error', 'IsSpam', 'Rules', 'Score']);
  });

  it('sa-check without a spamd: Mailpit\'s 400 text, saying what to set', async () => {
    const r = await fetch(`${mp.url}/nospamd/api/v1/message/${ids.welcome}/sa-check`, { headers: { authorization: `Basic ${Buffer.from(`x:${sandboxToken}`).toString('base64')}` } });
    assert.equal(r.status, 400);
    assert.equal(await r.text(), SPAM_NOT_CONFIGURED);
    assert.match(SPAM_NOT_CONFIGURED, /^no SpamAssassin service defined .*MAILROOM_SPAMD/);
  });

  it('isolation and authentication: another server\'s token gets 404, no token gets 401', async () => {
    const other = new MailpitClient(`${mp.url}/mailpit`, { auth: { username: 'ci', password: s.serverToken } });
    await assert.rejects(other.htmlCheck(ids.welcome), /404/);
    await assert.rejects(other.linkCheck(ids.welcome), /404/);
    await assert.rejects(other.spamAssassinCheck(ids.welcome), /404/);
    await assert.rejects(client.htmlCheck('00000000-0000-0000-0000-000000000000'), /404 .*404 page not found/);
    // A Sandbox server's Mailpit API reads only its Sandbox messages (one sent while it was Live is not there).
    const live = await send('2026-11-20T09:00:00Z', { HtmlBody: '<p>sent while Live</p>' });
    await s.ctx.db.updateTable('messages').set({ sandbox: 0 }).where('id', '=', live).execute();
    await assert.rejects(client.htmlCheck(live), /404/);
    const anonymous = await fetch(`${mp.url}/mailpit/api/v1/message/${ids.welcome}/html-check`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic/);
  });
  it('the spam check reads the source as sent when there is one, else the message composed as delivery would', async () => {
    const server = (await s.ctx.db.selectFrom('messages').select('server_id').where('id', '=', ids.welcome).executeTakeFirstOrThrow()).server_id;
    const composed = (await messageSource(s.ctx, { serverId: server }, ids.welcome)).toString('utf8');
    assert.match(composed, /^From: news@example\.com\r\n/m);
    assert.match(composed, /^To: dev@example\.net\r\n/m);
    assert.match(composed, /^Subject: Welcome\r\n/m);
    assert.match(composed, new RegExp(`^Message-ID: <${ids.welcome}@`, 'm'));
    assert.match(composed, /Content-Type: multipart\/alternative/);
    await s.ctx.db.updateTable('messages').set({ mime: 'From: a@b.example\r\nSubject: as sent\r\n\r\nbody\r\n' }).where('id', '=', ids.spam).execute();
    assert.equal((await messageSource(s.ctx, { serverId: server }, ids.spam)).toString('utf8'), 'From: a@b.example\r\nSubject: as sent\r\n\r\nbody\r\n');
  });
});
