// Console actions over real HTTP: API tokens issued (shown once, on the answer to the POST only) and revoked
// (refused by the API at once), server settings, a webhook deleted after a confirmation step, a template's
// test sent through the /email/withTemplate path, and the layouts view; viewers refused each change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient, VIEWER } from './helpers.js';

const FROM = 'shop@acme.example';
/** The value of a token as the one page that shows it renders it. */
const tokenIn = (text: string) => /<code id="new-token"[^>]*>([^<]+)<\/code>/.exec(text)?.[1];

describe('console admin actions', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    admin = new ConsoleClient(s);
    await admin.signIn(ADMIN);
    viewer = new ConsoleClient(s);
    await viewer.signIn(VIEWER);
  });
  after(async () => s.close());

  it('issues a server token shown once, on the answer to the POST only, and revokes it at once', async () => {
    const issued = await admin.post(`/console/servers/${s.serverId}/tokens`);
    assert.equal(issued.status, 200, issued.text.slice(0, 300));
    assert.equal(issued.headers.get('cache-control'), 'no-store');
    assert.equal(issued.headers.get('set-cookie'), null); // not carried to another page in a cookie
    const token = tokenIn(issued.text)!;
    assert.match(token, /^[0-9a-f-]{36}$/);
    assert.equal((await s.request('GET', '/server', { token })).status, 200);
    // Stored as a digest only; every page afterwards shows the hint, never the value.
    assert.equal((await s.ctx.db.selectFrom('api_tokens').select('id').where('token_hash', '=', token).execute()).length, 0);
    const list = await admin.get('/console/servers');
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes(token));
    assert.ok(list.text.includes(`…${token.slice(-4)}`));
    for (const p of ['activity', 'templates', 'webhooks']) assert.ok(!(await admin.get(`/console/s/${s.serverId}/${p}`)).text.includes(token), p);

    const row = await s.ctx.db.selectFrom('api_tokens').select('id').where('hint', '=', `…${token.slice(-4)}`).where('kind', '=', 'server').executeTakeFirstOrThrow();
    assert.equal((await viewer.post(`/console/servers/${s.serverId}/tokens/${row.id}/revoke`)).status, 403);
    assert.equal((await s.request('GET', '/server', { token })).status, 200);
    const revoked = await admin.post(`/console/servers/${s.serverId}/tokens/${row.id}/revoke`);
    assert.equal(revoked.status, 303);
    assert.equal((await s.request('GET', '/server', { token })).status, 401);
    assert.equal((await s.request('GET', '/server')).status, 200); // the other tokens keep working
  });

  it('issues and revokes account tokens, admins only', async () => {
    assert.equal((await viewer.post('/console/account/tokens')).status, 403);
    const issued = await admin.post('/console/account/tokens');
    assert.equal(issued.status, 200);
    const token = tokenIn(issued.text)!;
    assert.equal((await s.request('GET', '/servers?count=10&offset=0', { accountToken: token })).status, 200);
    assert.ok(!(await admin.get('/console/servers')).text.includes(token));
    const row = await s.ctx.db.selectFrom('api_tokens').select('id').where('hint', '=', `…${token.slice(-4)}`).where('kind', '=', 'account').executeTakeFirstOrThrow();
    // A server-token path cannot revoke an account token.
    const wrongKind = await admin.post(`/console/servers/${s.serverId}/tokens/${row.id}/revoke`);
    assert.equal(wrongKind.status, 422); // the API's "not found" (ErrorCode 422 family), said on the page
    assert.match(wrongKind.text, /No such token/);
    assert.equal((await admin.post(`/console/account/tokens/${row.id}/revoke`)).status, 303);
    assert.equal((await s.request('GET', '/servers?count=10&offset=0', { accountToken: token })).status, 401);
    assert.equal((await s.request('GET', '/servers?count=10&offset=0', { accountToken: s.accountToken })).status, 200);
  });

  it('saves server settings (retention, tracking defaults, SMTP on or off) as the API sees them', async () => {
    const r = await admin.post(`/console/servers/${s.serverId}/settings`, { retention: '30', trackopens: 'on', tracklinks: 'HtmlOnly' });
    assert.equal(r.status, 303);
    const server = (await s.request('GET', '/server')).body;
    assert.equal(server.RetentionDays, 30);
    assert.equal(server.TrackOpens, true);
    assert.equal(server.TrackLinks, 'HtmlOnly');
    assert.equal(server.SmtpApiActivated, false);
    assert.equal((await viewer.post(`/console/servers/${s.serverId}/settings`, { retention: '7', smtp: 'on' })).status, 403);
    assert.equal((await s.request('GET', '/server')).body.SmtpApiActivated, false);
  });

  it('shows a webhook’s new signing secret on the answer to the rotation only', async () => {
    const w = await s.request('POST', '/webhooks', { body: { Url: 'https://hooks.example.com/rotate', Triggers: { Delivery: { Enabled: true } } } });
    assert.equal(w.status, 200, w.text);
    const base = `/console/s/${s.serverId}/webhooks/${w.body.ID}`;
    assert.equal((await viewer.post(`${base}/rotate`)).status, 403);
    const r = await admin.post(`${base}/rotate`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('set-cookie'), null);
    const secret = /<code id="new-secret"[^>]*>([^<]+)<\/code>/.exec(r.text)?.[1];
    assert.ok(secret && secret.length >= 16, r.text.slice(0, 400));
    const after = await admin.get(base);
    assert.equal(after.status, 200);
    assert.ok(!after.text.includes(secret!));
    assert.match(after.text, /the previous secret also signs until/);
  });

  it('deletes a webhook only after a confirmation step, with the CSRF token, as an admin', async () => {
    const w = await s.request('POST', '/webhooks', { body: { Url: 'https://hooks.example.com/x', Triggers: { Delivery: { Enabled: true } } } });
    assert.equal(w.status, 200, w.text);
    const base = `/console/s/${s.serverId}/webhooks/${w.body.ID}`;
    assert.match((await admin.get(base)).text, new RegExp(`href="${base}/delete"`));
    const confirm = await admin.get(`${base}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /Delete the webhook that posts to/);
    assert.match(confirm.text, new RegExp(`<form method="post" action="${base}/delete"`));
    assert.equal((await s.request('GET', `/webhooks/${w.body.ID}`)).status, 200); // looking changed nothing
    assert.equal((await viewer.get(`${base}/delete`)).status, 403);
    assert.equal((await viewer.post(`${base}/delete`)).status, 403);
    assert.equal((await admin.request('POST', `${base}/delete`, {})).status, 403); // no CSRF token
    assert.equal((await s.request('GET', `/webhooks/${w.body.ID}`)).status, 200);
    const del = await admin.post(`${base}/delete`);
    assert.equal(del.status, 303);
    assert.equal(del.location, `/console/s/${s.serverId}/webhooks`);
    assert.notEqual((await s.request('GET', `/webhooks/${w.body.ID}`)).status, 200);
    const gone = await admin.get(`${base}/delete`);
    assert.equal(gone.status, 422);
    assert.match(gone.text, /was not found/);
  });

  it('sends a template test through the withTemplate path, with the test model, and refuses viewers', async () => {
    const layout = await s.request('POST', '/templates', { body: { Name: 'Brand', Alias: 'brand', TemplateType: 'Layout', HtmlBody: '<div class="brand">{{{@content}}}</div>', TextBody: 'BRAND {{{@content}}}' } });
    assert.equal(layout.status, 200, layout.text);
    const t = await s.request('POST', '/templates', { body: { Name: 'Receipt', Alias: 'receipt', LayoutTemplate: 'brand', Subject: 'Receipt for {{name}}', HtmlBody: '<p>Thanks {{name}}</p>', TextBody: 'Thanks {{name}}' } });
    assert.equal(t.status, 200, t.text);
    const path = `/console/s/${s.serverId}/templates/${t.body.TemplateId}`;
    const editor = await admin.get(path);
    assert.match(editor.text, /<legend>Send a test<\/legend>/);
    assert.match(editor.text, new RegExp(`value="${FROM}"`)); // the confirmed sender offered as From
    assert.doesNotMatch((await viewer.get(path)).text, /Send a test/);
    const form = { name: 'Receipt', subject: 'edited but not saved {{name}}', htmlbody: '<p>unsaved</p>', textbody: 'x', layout: 'brand', model: '{"name":"Ada"}', test_from: FROM, test_to: 'qa@dest.example' };
    assert.equal((await viewer.post(`${path}/send-test`, form)).status, 403);
    const sent = await admin.post(`${path}/send-test`, form);
    assert.equal(sent.status, 200);
    assert.match(sent.text, /Test sent to qa@dest\.example/);
    assert.match(sent.text, /edited but not saved/); // the unsaved edits are still in the form
    const m = await s.ctx.db.selectFrom('messages').selectAll().where('server_id', '=', s.serverId).where('tag', '=', 'console-test').execute();
    assert.equal(m.length, 1);
    assert.equal(m[0]!.subject, 'Receipt for Ada');
    const details = await s.request('GET', `/messages/outbound/${m[0]!.id}/details`);
    assert.match(details.body.HtmlBody, /<div class="brand"><p>Thanks Ada<\/p><\/div>/);
    assert.equal(details.body.TextBody, 'BRAND Thanks Ada');
    // An unconfirmed From is refused as the API refuses it, and said on the page.
    const refused = await admin.post(`${path}/send-test`, { ...form, test_from: 'nobody@elsewhere.example' });
    assert.equal(refused.status, 422);
    assert.match(refused.text, /The test was not sent/);
    const badModel = await admin.post(`${path}/send-test`, { ...form, model: '{nope' });
    assert.equal(badModel.status, 422);
    assert.match(badModel.text, /not JSON/);
    assert.equal((await s.ctx.db.selectFrom('messages').select('id').where('tag', '=', 'console-test').execute()).length, 1);

    // Layouts: listed with the templates that use them; a layout's editor names them too.
    const layouts = await viewer.get(`/console/s/${s.serverId}/layouts`);
    assert.equal(layouts.status, 200);
    assert.match(layouts.text, new RegExp(`<a href="/console/s/${s.serverId}/templates/${layout.body.TemplateId}">Brand</a>`));
    assert.match(layouts.text, new RegExp(`<a href="/console/s/${s.serverId}/templates/${t.body.TemplateId}">Receipt</a>`));
    const le = await viewer.get(`/console/s/${s.serverId}/templates/${layout.body.TemplateId}`);
    assert.match(le.text, /<h1>Layout: Brand<\/h1>/);
    assert.match(le.text, /<h2>Used by<\/h2><ul class="used-by"><li><a [^>]+>Receipt<\/a>/);
    assert.doesNotMatch(le.text, /Send a test/); // layouts cannot be sent
  });
});
