// Console webhooks over real HTTP: creating with the transactional stream as the default and every trigger
// option, a refused value said beside its field with the API's message (nothing written), editing, a test
// post to a real receiver on loopback (signed, its answer shown, a big answer cut to its first bytes), the
// server-wide delivery log paged newest first, viewers and forms without the CSRF token refused.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { addUsers, ADMIN, ConsoleClient, signedInPair } from './helpers.js';

describe('console: webhooks', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let hooks: WebhookReceiver;
  let big: http.Server;
  let bigUrl = '';
  const at = (p: string) => `/console/s/${s.serverId}${p}`;

  before(async () => {
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    ({ admin, viewer } = await signedInPair(s));
    hooks = await startWebhookReceiver();
    // A receiver answering a megabyte: the page shows only the first bytes.
    big = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/html' }).end(`<script>alert(1)</script>${'x'.repeat(1024 * 1024)}`));
    });
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
    bigUrl = `http://127.0.0.1:${(big.address() as AddressInfo).port}/big`;
  });
  after(async () => {
    await hooks.close();
    big.closeAllConnections();
    await new Promise((r) => big.close(r));
    await s.close();
  });

  const count = async () => Number((await s.ctx.db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('offers the default transactional stream first and every trigger option', async () => {
    const page = (await admin.get(at('/webhooks'))).text;
    assert.match(page, /<option value="outbound" selected>/);
    assert.doesNotMatch(page, /<option value="broadcast" selected>/);
    for (const name of ['trigger_Open', 'trigger_Open_PostFirstOpenOnly', 'trigger_Bounce_IncludeContent', 'trigger_SpamComplaint_IncludeContent', 'trigger_SubscriptionChange', 'trigger_Click', 'trigger_Delivery']) {
      assert.match(page, new RegExp(`name="${name}"`), name);
    }
  });

  it('says a refused value beside its field, keeps what was typed, writes nothing', async () => {
    const before = await count();
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ url: 'ftp://example.com/x' }, 'url', /Url must be an absolute http or https URL\./],
      [{ url: 'https://user:pw@example.com/x' }, 'url', /Put credentials in HttpAuth/],
      [{ url: 'https://example.com/x', headers: 'Bad Name: 1' }, 'headers', /HttpHeaders: &#39;Bad Name&#39; is not a valid header name\./],
      [{ url: 'https://example.com/x', authuser: 'a:b' }, 'authuser', /HttpAuth\.Username cannot contain a colon\./],
      [{ url: 'https://example.com/x', stream: 'nope' }, 'stream', /The message stream &#39;nope&#39; was not found\./],
    ];
    for (const [form, field, message] of cases) {
      const r = await admin.post(at('/webhooks/create'), { stream: 'outbound', ...form });
      assert.equal(r.status, 422, field);
      assert.match(r.text, new RegExp(`aria-invalid="true" autofocus aria-describedby="${field}-error"`), field);
      const beside = new RegExp(`<p class="field-error" id="${field}-error" role="alert">${message.source}`);
      assert.match(r.text, beside, field);
      assert.match(r.text, new RegExp(`value="${form.url!.replace(/[.?*+/]/g, '\\$&')}"`), 'the URL typed is kept');
    }
    assert.equal(await count(), before);
  });

  let id = 0;
  it('creates with every trigger option, shows the secret once, and edits', async () => {
    const r = await admin.post(at('/webhooks/create'), {
      url: hooks.url + '/hook',
      stream: 'outbound',
      trigger_Open: 'on',
      trigger_Open_PostFirstOpenOnly: 'on',
      trigger_Bounce: 'on',
      trigger_Bounce_IncludeContent: 'on',
      authuser: 'hookuser',
      authpassword: 'hookpass',
      headers: 'X-One: 1\r\nX-Two: two',
    });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /whsec_/);
    const api = (await s.request('GET', '/webhooks')).body.Webhooks;
    const w = api[api.length - 1];
    id = w.ID;
    assert.equal(w.MessageStream, 'outbound');
    assert.deepEqual(w.Triggers.Open, { Enabled: true, PostFirstOpenOnly: true });
    assert.deepEqual(w.Triggers.Bounce, { Enabled: true, IncludeContent: true });
    assert.equal(w.Triggers.Delivery.Enabled, false);
    assert.deepEqual(w.HttpHeaders, [{ Name: 'X-One', Value: '1' }, { Name: 'X-Two', Value: 'two' }]);
    // Edit: the stored password is kept by its mask; a refused header is said beside the field.
    const bad = await admin.post(at(`/webhooks/${id}/save`), { url: hooks.url + '/hook', authuser: 'hookuser', authpassword: '********', headers: 'Host: x', trigger_Delivery: 'on' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /class="field-error" id="headers-error" role="alert">HttpHeaders: &#39;Host&#39; is set by mailroom itself/);
    const ok = await admin.post(at(`/webhooks/${id}/save`), { url: hooks.url + '/hook2', authuser: 'hookuser', authpassword: '********', headers: '', trigger_Delivery: 'on' });
    assert.equal(ok.status, 303);
    const after = (await s.request('GET', `/webhooks/${id}`)).body;
    assert.equal(after.Url, hooks.url + '/hook2');
    assert.equal(after.HttpAuth.Password, '********');
    assert.equal(after.Triggers.Delivery.Enabled, true);
    assert.equal(after.Triggers.Open.Enabled, false);
    assert.deepEqual(after.HttpHeaders, []);
  });

  it('sends a signed test post of the chosen trigger and shows the answer; nothing is recorded', async () => {
    const before = hooks.requests.length;
    const r = await admin.post(at(`/webhooks/${id}/test`), { trigger: 'Bounce' });
    assert.equal(r.status, 200);
    assert.match(r.text, /Test post delivered<\/strong>: HTTP <code>200<\/code>/);
    assert.match(r.text, /<pre class="excerpt">ok<\/pre>/);
    assert.equal(hooks.requests.length, before + 1);
    const got = hooks.requests[hooks.requests.length - 1]!;
    assert.equal(got.path, '/hook2');
    assert.equal(got.json.RecordType, 'Bounce');
    assert.equal(got.json.MessageStream, 'outbound');
    assert.equal(got.headers.authorization, `Basic ${Buffer.from('hookuser:hookpass').toString('base64')}`);
    // Signed with the webhook's secret, as a real delivery is.
    const row = await s.ctx.db.selectFrom('webhooks').select('signing_secret').where('id', '=', id).executeTakeFirstOrThrow();
    const ts = got.headers['x-mailroom-timestamp'] as string;
    const mac = createHmac('sha256', s.ctx.secrets.open(row.signing_secret)).update(`${ts}.${got.body}`).digest('hex');
    assert.equal(got.headers['x-mailroom-signature'], `v1=${mac}`);
    assert.equal(Number((await s.ctx.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 0);
    // A failing target: its status and the first 512 bytes of a 1 MB answer, escaped.
    await s.ctx.db.updateTable('webhooks').set({ url: bigUrl }).where('id', '=', id).execute();
    const failed = await admin.post(at(`/webhooks/${id}/test`), { trigger: 'SubscriptionChange' });
    assert.match(failed.text, /Test post failed<\/strong>: HTTP <code>500<\/code>/);
    const excerpt = /<pre class="excerpt">([^<]*)<\/pre>/.exec(failed.text)![1]!;
    assert.ok(excerpt.startsWith('&lt;script&gt;alert(1)&lt;/script&gt;'), excerpt.slice(0, 60));
    assert.ok(excerpt.replace(/&[a-z]+;/g, 'c').length <= 512, String(excerpt.length));
    assert.doesNotMatch(failed.text, /<script>alert/);
    // A target the address guard refuses is refused by the test post too.
    const guarded = await startService({ env: {} });
    try {
      await addUsers(guarded);
      const g = new ConsoleClient(guarded);
      await g.signIn(ADMIN);
      const made = await guarded.ctx.db
        .insertInto('webhooks')
        .values({ server_id: guarded.serverId, stream_id: 'outbound', url: hooks.url + '/private', triggers: '{}', http_auth_user: '', http_auth_password: '', headers: '[]', signing_secret: guarded.ctx.secrets.seal('whsec_x'), created_at: 0, updated_at: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      const n = hooks.requests.length;
      const refused = await g.post(`/console/s/${guarded.serverId}/webhooks/${made.id}/test`, { trigger: 'Delivery' });
      assert.match(refused.text, /Test post failed<\/strong>: no answer \(Url points at 127\.0\.0\.1, a private or reserved address\.\)/);
      assert.equal(hooks.requests.length, n);
    } finally {
      await guarded.close();
    }
  });

  it('shows every delivery of the server newest first, in pages', async () => {
    await s.ctx.db.updateTable('webhooks').set({ url: hooks.url + '/hook2' }).where('id', '=', id).execute();
    const n = await s.ctx.db
      .insertInto('webhook_notifications')
      .values({ webhook_id: id, server_id: s.serverId, event_id: 1, record_type: 'Delivery', payload: '{}', status: 'failed', attempts: 60, created_at: 0, next_attempt_at: null, last_attempt_at: null, last_status_code: 500, last_error: 'HTTP 500', completed_at: s.clock.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let i = 1; i <= 60; i++) {
      await s.ctx.db.insertInto('webhook_attempts').values({ notification_id: n.id, webhook_id: id, event_id: 1, attempt: i, outcome: i === 60 ? 'failed' : 'retrying', status_code: 500, error: `HTTP 500 number ${i}`, started_at: 1_700_000_000_000 + i * 1000, duration_ms: 3 }).execute();
    }
    const first = await viewer.get(at('/webhooks/deliveries'));
    assert.equal(first.status, 200);
    const numbers = (t: string) => [...t.matchAll(/HTTP 500 number (\d+)/g)].map((m) => Number(m[1]));
    assert.deepEqual(numbers(first.text), Array.from({ length: 50 }, (_, i) => 60 - i));
    const older = /href="([^"]+before=\d+)" rel="next"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await viewer.get(older);
    assert.deepEqual(numbers(second.text), Array.from({ length: 10 }, (_, i) => 10 - i));
    assert.doesNotMatch(second.text, /rel="next"/);
    // The webhook's own log, paged too.
    const own = await viewer.get(at(`/webhooks/${id}`));
    assert.equal(numbers(own.text).length, 50);
    assert.match(own.text, /offset=50" rel="next"/);
  });

  it('refuses viewers and forms without the CSRF token', async () => {
    const before = await count();
    const n = hooks.requests.length;
    assert.equal((await viewer.post(at('/webhooks/create'), { url: 'https://example.com/v', stream: 'outbound' })).status, 403);
    assert.equal((await viewer.post(at(`/webhooks/${id}/test`), { trigger: 'Delivery' })).status, 403);
    assert.equal((await viewer.post(at(`/webhooks/${id}/save`), { url: 'https://example.com/v' })).status, 403);
    assert.equal((await admin.post(at('/webhooks/create'), { _csrf: 'wrong', url: 'https://example.com/v', stream: 'outbound' })).status, 403);
    assert.equal((await admin.post(at(`/webhooks/${id}/test`), { _csrf: '', trigger: 'Delivery' })).status, 403);
    assert.equal(await count(), before);
    assert.equal(hooks.requests.length, n);
    assert.doesNotMatch((await viewer.get(at(`/webhooks/${id}`))).text, /Send a test post<\/button>/);
  });
});
