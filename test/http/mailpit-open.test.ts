// MAILROOM_MAILPIT_OPEN_SERVER: Mailpit's API without credentials, as stock Mailpit serves it, over the one
// Sandbox server the setting names; the npm client mailpit-api constructed with no auth lists and reads that
// server's messages, credentials still select their own server (bad ones 401), a server renamed or made Live
// since serves nothing, a Live server stops `mailroom serve` naming the variable, and unset keeps the 401.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MailpitClient } from 'mailpit-api';
import { createTestDatabase } from '../helpers/database.js';
import { databaseUrlFor, runToEnd } from '../helpers/process.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';

const FROM = 'app@shop.example';

describe('Mailpit API without credentials (MAILROOM_MAILPIT_OPEN_SERVER)', () => {
  let s: TestService;
  let openToken: string;
  let otherToken: string;
  let openId: number;
  const send = (token: string, Subject: string) => s.request('POST', '/email', { token, body: { From: FROM, To: 'jane@dest.example', Subject, TextBody: `Body of ${Subject}` } });

  before(async () => {
    s = await startService({ env: { MAILROOM_MAILPIT_OPEN_SERVER: 'Test inbox' } });
    await addConfirmedSender(s, FROM);
    const mk = async (Name: string) => {
      const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name, DeliveryType: 'Sandbox' } });
      assert.equal(r.status, 200, r.text);
      return { token: r.body.ApiTokens[0] as string, id: r.body.ID as number };
    };
    const open = await mk('Test inbox');
    openToken = open.token;
    openId = open.id;
    otherToken = (await mk('Other inbox')).token;
    assert.equal((await send(openToken, 'Welcome, Jane')).status, 200);
    assert.equal((await send(otherToken, 'For the other inbox')).status, 200);
    assert.equal((await send(s.serverToken, 'Live mail')).status, 200);
  });
  after(() => s.close());

  it('serves the open server to a client with no credentials: lists, reads, searches', async () => {
    const mp = new MailpitClient(`${s.url}/mailpit`);
    const list = await mp.listMessages();
    assert.deepEqual(
      list.messages.map((m) => m.Subject),
      ['Welcome, Jane'],
    );
    const m = await mp.getMessageSummary(list.messages[0]!.ID);
    assert.equal(m.Subject, 'Welcome, Jane');
    assert.equal(m.Text.trim(), 'Body of Welcome, Jane');
    assert.match(await mp.getMessageSource(m.ID), /Subject: Welcome, Jane/);
    assert.equal((await mp.searchMessages({ query: 'subject:other' })).messages.length, 0, "the other server's mail is not there");
    const info = await fetch(`${s.url}/mailpit/api/v1/info`);
    assert.equal(info.status, 200);
    // A browser opening Mailpit's web UI path still goes to the console's inbox (its own sign-in).
    const ui = await fetch(`${s.url}/mailpit/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    assert.equal(ui.status, 302);
    assert.equal(ui.headers.get('location'), '/console/inbox');
  });

  it("keeps credentials' own server, and refuses bad or Live credentials rather than falling back", async () => {
    const other = new MailpitClient(`${s.url}/mailpit`, { auth: { username: 'ci', password: otherToken } });
    assert.deepEqual(
      (await other.listMessages()).messages.map((m) => m.Subject),
      ['For the other inbox'],
    );
    await assert.rejects(new MailpitClient(`${s.url}/mailpit`, { auth: { username: 'ci', password: 'wrong' } }).listMessages(), /401/);
    await assert.rejects(new MailpitClient(`${s.url}/mailpit`, { auth: { username: 'ci', password: s.serverToken } }).listMessages(), /403 Forbidden.*Live server/);
    // An Authorization header that is not Basic is a credential, refused, not the open server.
    const bearer = await fetch(`${s.url}/mailpit/api/v1/messages`, { headers: { authorization: `Bearer ${openToken}` } });
    assert.equal(bearer.status, 401);
    const empty = await fetch(`${s.url}/mailpit/api/v1/messages`, { headers: { authorization: '' } });
    assert.equal(empty.status, 401);
  });

  it('looks the server up per request: renamed or made Live since, it serves nothing (401)', async () => {
    const mp = new MailpitClient(`${s.url}/mailpit`);
    const renamed = await s.request('PUT', `/servers/${openId}`, { accountToken: s.accountToken, body: { Name: 'Renamed inbox' } });
    assert.equal(renamed.status, 200, renamed.text);
    await assert.rejects(mp.listMessages(), /401/);
    const back = await s.request('PUT', `/servers/${openId}`, { accountToken: s.accountToken, body: { Name: 'Test inbox' } });
    assert.equal(back.status, 200, back.text);
    assert.equal((await mp.listMessages()).total, 1);
    // Delivery type is fixed through the API; changed underneath (a restore, a hand edit), never served as Live.
    await s.ctx.db.updateTable('servers').set({ delivery_type: 'Live' }).where('id', '=', openId).execute();
    try {
      const r = await fetch(`${s.url}/mailpit/api/v1/messages`);
      assert.equal(r.status, 401);
      assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    } finally {
      await s.ctx.db.updateTable('servers').set({ delivery_type: 'Sandbox' }).where('id', '=', openId).execute();
    }
    assert.equal((await mp.listMessages()).total, 1);
  });
});

describe('Mailpit API without MAILROOM_MAILPIT_OPEN_SERVER', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Test inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
  });
  after(() => s.close());

  it('refuses a request without credentials (401), as before', async () => {
    await assert.rejects(new MailpitClient(`${s.url}/mailpit`).listMessages(), /401/);
    const r = await fetch(`${s.url}/mailpit/api/v1/messages`);
    assert.equal(r.status, 401);
    assert.match(await r.text(), /use HTTP Basic authentication/);
  });
});

describe('MAILROOM_MAILPIT_OPEN_SERVER at start', () => {
  const serve = async (server: string) => {
    const tdb = await createTestDatabase();
    try {
      return await runToEnd(['serve'], {
        MAILROOM_DATABASE_URL: databaseUrlFor(tdb),
        MAILROOM_PORT: '0',
        MAILROOM_INBOUND_SMTP_PORT: '0',
        MAILROOM_SUBMISSION_PORT: 'off',
        MAILROOM_MAILPIT_OPEN_SERVER: server,
        MAILROOM_LOG_LEVEL: 'silent',
        // A start under a shared machine's load (tsx, migrations) may take longer than the helper's default.
      }, 120_000);
    } finally {
      await tdb.drop();
    }
  };

  it('`mailroom serve` naming a Live or unknown server stops with the variable in its message', async () => {
    const live = await serve('Default');
    assert.notEqual(live.code, 0);
    assert.match(live.stderr, /configuration error: MAILROOM_MAILPIT_OPEN_SERVER: server "Default" \(ID \d+\) is a Live server/);
    const unknown = await serve('No such inbox');
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /configuration error: MAILROOM_MAILPIT_OPEN_SERVER: no server named "No such inbox"/);
  });
});
