// Console inbound settings over real HTTP: the inbound address shown (as the API reports it) with a copy
// button, the missing InboundHookUrl said on the inbound list with a link to where it is set, the hook URL,
// domain and spam threshold saved through the same call as PUT /server with refusals beside their fields, a
// test post of a sample inbound message to a real receiver on loopback, viewers and CSRF-less forms refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { ConsoleClient, signedInPair } from './helpers.js';

describe('console: inbound settings', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let hooks: WebhookReceiver;
  const at = (p: string) => `/console/s/${s.serverId}${p}`;

  before(async () => {
    s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    ({ admin, viewer } = await signedInPair(s));
    hooks = await startWebhookReceiver();
  });
  after(async () => {
    await hooks.close();
    await s.close();
  });

  it('shows the inbound address the API reports, and links a missing hook URL to its setting', async () => {
    const api = (await s.request('GET', '/server')).body;
    assert.equal(api.InboundHookUrl, '');
    for (const p of ['/inbound', '/inbound/settings']) {
      const page = await viewer.get(at(p));
      assert.equal(page.status, 200, p);
      assert.match(page.text, new RegExp(`<code [^>]*id="inbound-address"[^>]*>${api.InboundAddress.replace(/[.+]/g, '\\$&')}</code> <button type="button" data-copy="#inbound-address"`), p);
    }
    assert.match((await viewer.get(at('/inbound'))).text, /id="no-hook">Not posted: this server has no InboundHookUrl[^<]*<a href="\/console\/s\/\d+\/inbound\/settings">Set the InboundHookUrl<\/a>/);
    assert.match((await viewer.get(at('/inbound/settings'))).text, /No InboundHookUrl is set/);
  });

  it('says a refused value beside its field and changes nothing', async () => {
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ hookurl: 'ftp://x.example/in', domain: '', spam: '5' }, 'hookurl', /InboundHookUrl: Url must be an absolute http or https URL\./],
      [{ hookurl: '', domain: '', spam: '31' }, 'spam', /InboundSpamThreshold must be a whole number from 0 to 30\./],
      [{ hookurl: '', domain: '', spam: 'lots' }, 'spam', /InboundSpamThreshold must be a whole number from 0 to 30\./],
    ];
    for (const [form, field, message] of cases) {
      const r = await admin.post(at('/inbound/settings'), form);
      assert.equal(r.status, 422, field);
      assert.match(r.text, new RegExp(`aria-describedby="${field}-error">`), field);
      assert.match(r.text, new RegExp(`class="field-error" id="${field}-error" role="alert">${message.source}`), field);
    }
    const api = (await s.request('GET', '/server')).body;
    assert.equal(api.InboundHookUrl, '');
    assert.equal(api.InboundSpamThreshold, 0); // the refused form wrote no part of itself
  });

  it('saves the hook URL (its password kept as a mask) and test-posts a sample message to it', async () => {
    const saved = await admin.post(at('/inbound/settings'), { hookurl: `http://app:s3cret@127.0.0.1:${hooks.port}/inbound`, domain: 'in.example.com', spam: '7' });
    assert.equal(saved.status, 303, saved.text);
    const api = (await s.request('GET', '/server')).body;
    assert.equal(api.InboundHookUrl, `http://app:********@127.0.0.1:${hooks.port}/inbound`);
    assert.equal(api.InboundDomain, 'in.example.com');
    assert.equal(api.InboundSpamThreshold, 7);
    const page = (await admin.get(at('/inbound/settings'))).text;
    assert.doesNotMatch(page, /s3cret/);
    assert.doesNotMatch((await admin.get(at('/inbound'))).text, /id="no-hook"/);

    const r = await admin.post(at('/inbound/settings/test'));
    assert.equal(r.status, 200);
    assert.match(r.text, /Test post delivered<\/strong>: HTTP <code>200<\/code>/);
    const got = hooks.requests[hooks.requests.length - 1]!;
    assert.equal(got.path, '/inbound');
    assert.equal(got.headers.authorization, `Basic ${Buffer.from('app:s3cret').toString('base64')}`);
    assert.equal(got.json.OriginalRecipient.split('@')[1], api.InboundAddress.split('@')[1]);
    assert.equal(got.json.MailboxHash, 'sample-hash');
    for (const k of ['From', 'FromFull', 'To', 'ToFull', 'Subject', 'MessageID', 'Date', 'TextBody', 'HtmlBody', 'StrippedTextReply', 'Headers', 'Attachments', 'MessageStream']) assert.ok(k in got.json, k);
    // Nothing was stored as an inbound message.
    assert.equal((await s.ctx.db.selectFrom('inbound_messages').select('id').execute()).length, 0);
    // A failing application: its status and answer shown.
    hooks.respond(503);
    const failed = await admin.post(at('/inbound/settings/test'));
    assert.match(failed.text, /Test post failed<\/strong>: HTTP <code>503<\/code>/);
    assert.match(failed.text, /<pre class="excerpt">status 503<\/pre>/);
    hooks.respond(200);
  });

  it('refuses viewers and forms without the CSRF token', async () => {
    const n = hooks.requests.length;
    assert.equal((await viewer.post(at('/inbound/settings'), { hookurl: '', domain: '', spam: '0' })).status, 403);
    assert.equal((await viewer.post(at('/inbound/settings/test'))).status, 403);
    assert.equal((await admin.post(at('/inbound/settings'), { _csrf: 'nope', hookurl: '', domain: '', spam: '0' })).status, 403);
    assert.equal((await admin.post(at('/inbound/settings/test'), { _csrf: '' })).status, 403);
    assert.equal(hooks.requests.length, n);
    assert.equal((await s.request('GET', '/server')).body.InboundSpamThreshold, 7);
    assert.doesNotMatch((await viewer.get(at('/inbound/settings'))).text, /Send a test post/);
  });

  it('answers a refused inbound rule beside its field', async () => {
    const r = await admin.post(at('/inbound/rules/add'), { rule: 'not a rule!' });
    assert.equal(r.status, 422);
    assert.match(r.text, /class="field-error" id="rule-error" role="alert">Rule &#39;not a rule!&#39; is neither an email address nor a domain\./);
    assert.match(r.text, /value="not a rule!"/);
  });
});
