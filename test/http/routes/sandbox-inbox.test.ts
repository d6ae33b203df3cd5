// A Sandbox server as a test inbox in place of Mailpit: with SandboxAcceptsAnyFrom it takes any From through
// the API (a Live server never does), its attachments are kept and downloadable from the console (as a
// download, whatever type the sender gave), and /mailpit/ in a browser leads to the console's inbox.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient } from '../console/helpers.js';

describe('Sandbox server as a test inbox', () => {
  let s: TestService;
  let sandbox: { id: number; token: string };
  before(async () => {
    s = await startService();
    await addUsers(s);
    const created = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Test inbox', DeliveryType: 'Sandbox' } });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.SandboxAcceptsAnyFrom, false, 'off unless asked for');
    sandbox = { id: created.body.ID, token: created.body.ApiTokens[0] };
  });
  after(() => s.close());

  const send = (token: string, extra: Record<string, unknown> = {}) =>
    s.request('POST', '/email', { token, body: { From: 'app@unsigned.example', To: 'jane@dest.example', Subject: 'Hi', TextBody: 'x', ...extra } });

  it('takes any From once SandboxAcceptsAnyFrom is on; a Live server refuses the setting its effect', async () => {
    assert.equal((await send(sandbox.token)).body.ErrorCode, 400, 'a signature is needed by default');
    const put = await s.request('PUT', '/server', { token: sandbox.token, body: { SandboxAcceptsAnyFrom: true } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.SandboxAcceptsAnyFrom, true);
    const ok = await send(sandbox.token);
    assert.equal(ok.body.ErrorCode, 0, ok.text);
    // On a Live server the setting changes nothing: mail that leaves needs a signature.
    await s.request('PUT', '/server', { body: { SandboxAcceptsAnyFrom: true } });
    assert.equal((await send(s.serverToken)).body.ErrorCode, 400);
    const bad = await s.request('PUT', '/server', { token: sandbox.token, body: { SandboxAcceptsAnyFrom: 'yes' } });
    assert.equal(bad.status, 422, bad.text);
  });

  it('keeps a Sandbox message’s attachment; the console downloads it, inert whatever its type', async () => {
    const pdf = Buffer.from('%PDF-1.4 test');
    const sent = await send(sandbox.token, {
      Attachments: [
        { Name: 'invoice.pdf', Content: pdf.toString('base64'), ContentType: 'application/pdf' },
        { Name: 'ré"sumé.html', Content: Buffer.from('<script>alert(1)</script>').toString('base64'), ContentType: 'text/html' },
      ],
    });
    assert.equal(sent.body.ErrorCode, 0, sent.text);
    const id = sent.body.MessageID as string;
    const c = new ConsoleClient(s);
    assert.equal((await c.signIn(ADMIN)).status, 303);
    const page = await c.get(`/console/s/${sandbox.id}/messages/${id}`);
    assert.match(page.text, new RegExp(`href="/console/s/${sandbox.id}/messages/${id}/attachments/0" download>invoice.pdf</a>`));
    const file = await fetch(`${s.url}/console/s/${sandbox.id}/messages/${id}/attachments/0`, { headers: { cookie: c.cookie } });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'application/pdf');
    assert.match(file.headers.get('content-disposition')!, /^attachment; filename="invoice\.pdf"/);
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(pdf));
    const evil = await fetch(`${s.url}/console/s/${sandbox.id}/messages/${id}/attachments/1`, { headers: { cookie: c.cookie } });
    assert.equal(evil.status, 200);
    assert.equal(evil.headers.get('content-disposition'), `attachment; filename="r__sum_.html"; filename*=UTF-8''${encodeURIComponent('ré"sumé.html')}`);
    assert.match(evil.headers.get('content-security-policy')!, /sandbox/);
    assert.equal(evil.headers.get('x-content-type-options'), 'nosniff');
    // Another server's console path does not reach it.
    assert.equal((await c.get(`/console/s/${s.serverId}/messages/${id}/attachments/0`)).status, 404);
  });

  it('/mailpit/ in a browser leads to the console inbox, the first Sandbox server', async () => {
    const r = await fetch(`${s.url}/mailpit/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/console/inbox');
    // The API is not redirected: a client without credentials is asked for them.
    assert.equal((await fetch(`${s.url}/mailpit/api/v1/messages`, { redirect: 'manual' })).status, 401);
    const c = new ConsoleClient(s);
    await c.signIn(ADMIN);
    assert.equal((await c.get('/console/inbox')).location, `/console/s/${sandbox.id}/activity`);
  });
});
