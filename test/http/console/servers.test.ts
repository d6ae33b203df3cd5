// Servers from the console over real HTTP: created with every setting POST /servers takes, edited with every
// one PUT /servers/{id} takes (read back through the API), deleted only after the name is typed, tokens
// issued and revoked; each refused value answered with the API's own Message beside its field; viewers see
// the pages and are refused every change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { ConsoleClient, signedInPair } from './helpers.js';

/** The message shown under the form field `name` (whose control is marked invalid and described by it), or undefined. */
const besideField = (text: string, name: string) => {
  if (!new RegExp(`name="${name}"[^>]*aria-invalid="true" autofocus aria-describedby="${name}-error"`).test(text)) return undefined;
  return new RegExp(`<p class="field-error" id="${name}-error" role="alert">([^<]*)</p>`).exec(text)?.[1];
};
const unescape = (s: string) => s.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

const FULL = {
  name: 'Shop mail',
  color: 'Green',
  delivery: 'Sandbox',
  smtp: 'on',
  rawemail: 'on',
  trackopens: 'on',
  tracklinks: 'HtmlAndText',
  retention: '30',
  anyfrom: 'on',
  inbounddomain: 'In.Shop.Example',
  spamthreshold: '5',
  inboundhook: 'https://hooks.example.com/inbound',
  bouncehook: 'https://hooks.example.com/bounce',
  bouncecontent: 'on',
  deliveryhook: 'https://hooks.example.com/delivery',
  openhook: 'https://hooks.example.com/open',
  firstopenonly: 'on',
  clickhook: 'https://hooks.example.com/click',
  spamhook: 'https://hooks.example.com/spam',
  smtperrorhooks: 'on',
};

describe('console servers', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  const api = (method: string, path: string, body?: unknown) => s.request(method, path, { accountToken: s.accountToken, body });
  before(async () => {
    s = await startService();
    ({ admin, viewer } = await signedInPair(s));
  });
  after(async () => s.close());

  it('creates a server with every setting, shows its first token once, and the API reads each back', async () => {
    assert.equal((await viewer.post('/console/servers', FULL)).status, 403);
    const form = await admin.get('/console/servers/new');
    assert.equal(form.status, 200);
    for (const name of Object.keys(FULL)) assert.match(form.text, new RegExp(`name="${name}"`), name);
    const made = await admin.post('/console/servers', FULL);
    assert.equal(made.status, 200, made.text.slice(0, 400));
    const token = /<code id="new-token"[^>]*>([^<]+)<\/code>/.exec(made.text)![1]!;
    const list = (await api('GET', '/servers?count=50&offset=0&name=Shop')).body.Servers;
    assert.equal(list.length, 1);
    const v = list[0];
    assert.deepEqual(
      {
        Name: v.Name, Color: v.Color, DeliveryType: v.DeliveryType, SmtpApiActivated: v.SmtpApiActivated, RawEmailEnabled: v.RawEmailEnabled, TrackOpens: v.TrackOpens, TrackLinks: v.TrackLinks,
        RetentionDays: v.RetentionDays, SandboxAcceptsAnyFrom: v.SandboxAcceptsAnyFrom, InboundDomain: v.InboundDomain, InboundSpamThreshold: v.InboundSpamThreshold, InboundHookUrl: v.InboundHookUrl,
        BounceHookUrl: v.BounceHookUrl, IncludeBounceContentInHook: v.IncludeBounceContentInHook, DeliveryHookUrl: v.DeliveryHookUrl, OpenHookUrl: v.OpenHookUrl, PostFirstOpenOnly: v.PostFirstOpenOnly,
        ClickHookUrl: v.ClickHookUrl, SpamComplaintHookUrl: v.SpamComplaintHookUrl, EnableSmtpApiErrorHooks: v.EnableSmtpApiErrorHooks,
      },
      {
        Name: 'Shop mail', Color: 'Green', DeliveryType: 'Sandbox', SmtpApiActivated: true, RawEmailEnabled: true, TrackOpens: true, TrackLinks: 'HtmlAndText',
        RetentionDays: 30, SandboxAcceptsAnyFrom: true, InboundDomain: 'in.shop.example', InboundSpamThreshold: 5, InboundHookUrl: 'https://hooks.example.com/inbound',
        BounceHookUrl: 'https://hooks.example.com/bounce', IncludeBounceContentInHook: true, DeliveryHookUrl: 'https://hooks.example.com/delivery', OpenHookUrl: 'https://hooks.example.com/open', PostFirstOpenOnly: true,
        ClickHookUrl: 'https://hooks.example.com/click', SpamComplaintHookUrl: 'https://hooks.example.com/spam', EnableSmtpApiErrorHooks: true,
      },
    );
    assert.equal((await s.request('GET', '/server', { token })).body.ID, v.ID);
    // The server's page shows the inbound address read-only, and the first token by its hint only.
    const pageOf = await viewer.get(`/console/servers/${v.ID}`);
    assert.equal(pageOf.status, 200);
    assert.ok(pageOf.text.includes(`<code class="wrap" id="inbound-address">${v.InboundAddress}</code>`));
    assert.ok(!pageOf.text.includes(token) && pageOf.text.includes(`…${token.slice(-4)}`));
    assert.doesNotMatch(pageOf.text, /Save settings|Delete Shop mail/); // viewers get no buttons
    assert.match(pageOf.text, /name="retention" type="number" step="1" value="30" disabled/);
  });

  it('answers a refused value with the API’s own Message beside its field, and writes nothing', async () => {
    const before = (await api('GET', `/servers/${s.serverId}`)).body;
    const cases: Array<[Record<string, string>, string, Record<string, unknown>]> = [
      [{ retention: '3' }, 'retention', { RetentionDays: 3 }],
      [{ spamthreshold: '99' }, 'spamthreshold', { InboundSpamThreshold: 99 }],
      [{ bouncehook: 'http://127.0.0.1/hook' }, 'bouncehook', { BounceHookUrl: 'http://127.0.0.1/hook' }],
      [{ inboundhook: 'ftp://hooks.example.com/' }, 'inboundhook', { InboundHookUrl: 'ftp://hooks.example.com/' }],
      [{ name: 'Shop mail' }, 'name', { Name: 'Shop mail' }],
      [{ name: '   ' }, 'name', { Name: '   ' }],
      [{ tracklinks: 'Sometimes' }, 'tracklinks', { TrackLinks: 'Sometimes' }],
      [{ color: 'Mauve' }, 'color', { Color: 'Mauve' }],
    ];
    for (const [form, field, body] of cases) {
      const theirs = await api('PUT', `/servers/${s.serverId}`, body);
      assert.equal(theirs.status, 422, JSON.stringify(body));
      const r = await admin.post(`/console/servers/${s.serverId}/settings`, { smtp: before.SmtpApiActivated ? 'on' : '', ...form });
      assert.equal(r.status, 422, field);
      assert.equal(unescape(besideField(r.text, field) ?? ''), theirs.body.Message, `${field}: ${r.text.slice(r.text.indexOf('<form'), r.text.indexOf('<form') + 600)}`);
      assert.ok(r.text.includes(`value="${form[field]!.replace(/"/g, '&quot;')}"`) || field === 'tracklinks' || field === 'color', 'the value typed is kept');
    }
    // On creation too.
    const dup = await admin.post('/console/servers', { ...FULL, name: 'Shop mail' });
    assert.equal(dup.status, 422);
    assert.equal(unescape(besideField(dup.text, 'name') ?? ''), "A server named 'Shop mail' already exists.");
    const after = (await api('GET', `/servers/${s.serverId}`)).body;
    assert.deepEqual(after, before);
  });

  it('saves every setting PUT /servers/{id} takes, and only what changed', async () => {
    const w = await s.request('POST', '/webhooks', { body: { Url: 'https://other.example.com/bounces', Triggers: { Bounce: { Enabled: true } } } });
    assert.equal(w.status, 200, w.text);
    const page = await admin.get(`/console/servers/${s.serverId}`);
    // Post the form back as shown (every field, hooks included) with two changes.
    const fields: Record<string, string> = {};
    const formHtml = page.text.slice(page.text.indexOf('<form method="post" action="/console/servers/'));
    for (const m of formHtml.matchAll(/<input id="f-[^"]+" name="([a-z]+)" type="(text|number)"[^>]*value="([^"]*)"/g)) fields[m[1]!] = m[3]!;
    for (const m of formHtml.matchAll(/<input id="f-[^"]+" name="([a-z]+)" type="checkbox"( checked)?/g)) if (m[2]) fields[m[1]!] = 'on';
    for (const m of formHtml.matchAll(/<select id="f-[^"]+" name="([a-z]+)"[^>]*>(.*?)<\/select>/g)) fields[m[1]!] = /<option value="([^"]*)" selected>/.exec(m[2]!)?.[1] ?? '';
    assert.ok('bouncehook' in fields && 'retention' in fields && 'color' in fields, Object.keys(fields).join());
    const saved = await admin.post(`/console/servers/${s.serverId}/settings`, { ...fields, retention: '60', openhook: 'https://hooks.example.com/opened', color: 'Red' });
    assert.equal(saved.status, 303, saved.text.slice(0, 300));
    assert.equal(saved.location, `/console/servers/${s.serverId}`);
    const v = (await api('GET', `/servers/${s.serverId}`)).body;
    assert.equal(v.RetentionDays, 60);
    assert.equal(v.OpenHookUrl, 'https://hooks.example.com/opened');
    assert.equal(v.Color, 'Red');
    // The webhook made through /webhooks keeps its trigger: the untouched hook fields were not re-sent.
    const hook = (await s.request('GET', `/webhooks/${w.body.ID}`)).body;
    assert.equal(hook.Triggers.Bounce.Enabled, true);

    const edits = { name: 'Renamed', rawemail: 'on', trackopens: 'on', tracklinks: 'TextOnly', inbounddomain: 'mx.renamed.example', spamthreshold: '7', smtperrorhooks: 'on', clickhook: 'https://hooks.example.com/c2' };
    assert.equal((await admin.post(`/console/servers/${s.serverId}/settings`, { ...fields, ...edits })).status, 303);
    const e = (await api('GET', `/servers/${s.serverId}`)).body;
    assert.deepEqual([e.Name, e.RawEmailEnabled, e.TrackOpens, e.TrackLinks, e.InboundDomain, e.InboundSpamThreshold, e.EnableSmtpApiErrorHooks, e.ClickHookUrl], ['Renamed', true, true, 'TextOnly', 'mx.renamed.example', 7, true, 'https://hooks.example.com/c2']);
    assert.equal((await viewer.post(`/console/servers/${s.serverId}/settings`, { ...fields, name: 'By viewer' })).status, 403);
    assert.equal((await api('GET', `/servers/${s.serverId}`)).body.Name, 'Renamed');
  });

  it('issues and revokes a token from the server’s page, back to it', async () => {
    const issued = await admin.post(`/console/servers/${s.serverId}/tokens`);
    const token = /<code id="new-token"[^>]*>([^<]+)<\/code>/.exec(issued.text)![1]!;
    const row = await s.ctx.db.selectFrom('api_tokens').select('id').where('hint', '=', `…${token.slice(-4)}`).executeTakeFirstOrThrow();
    const page = await admin.get(`/console/servers/${s.serverId}`);
    assert.match(page.text, new RegExp(`action="/console/servers/${s.serverId}/tokens/${row.id}/revoke"`));
    const r = await admin.post(`/console/servers/${s.serverId}/tokens/${row.id}/revoke`, { back: `/console/servers/${s.serverId}` });
    assert.equal(r.status, 303);
    assert.equal(r.location, `/console/servers/${s.serverId}`);
    assert.equal((await s.request('GET', '/server', { token })).status, 401);
    // Anywhere else is not a way back.
    assert.equal((await admin.post(`/console/servers/${s.serverId}/tokens/999999/revoke`, { back: 'https://evil.example/' })).status, 422);
  });

  it('deletes a server only after its name is typed, admins only', async () => {
    const made = await api('POST', '/servers', { Name: 'Doomed <b>server</b>' });
    assert.equal(made.status, 200, made.text);
    const id = made.body.ID;
    const token = made.body.ApiTokens[0];
    const confirm = await admin.get(`/console/servers/${id}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /Delete the server <strong>Doomed &lt;b&gt;server&lt;\/b&gt;<\/strong>/);
    assert.equal((await viewer.get(`/console/servers/${id}/delete`)).status, 403);
    assert.equal((await viewer.post(`/console/servers/${id}/delete`, { confirm: 'Doomed <b>server</b>' })).status, 403);
    assert.equal((await admin.request('POST', `/console/servers/${id}/delete`, { confirm: 'Doomed <b>server</b>' })).status, 403); // no CSRF token
    const wrong = await admin.post(`/console/servers/${id}/delete`, { confirm: 'Doomed' });
    assert.equal(wrong.status, 422);
    assert.equal(unescape(besideField(wrong.text, 'confirm') ?? ''), 'Type the name Doomed <b>server</b> exactly to delete this server.');
    assert.equal((await api('GET', `/servers/${id}`)).status, 200);
    assert.equal((await s.request('GET', '/server', { token })).status, 200);
    const del = await admin.post(`/console/servers/${id}/delete`, { confirm: 'Doomed <b>server</b>' });
    assert.equal(del.status, 303);
    assert.equal(del.location, '/console/servers');
    assert.equal((await api('GET', `/servers/${id}`)).status, 422);
    assert.equal((await s.request('GET', '/server', { token })).status, 401);
    assert.equal((await admin.get(`/console/servers/${id}`)).status, 422);
    assert.equal((await admin.get('/console/servers/NaN')).status, 422);
  });

  it('lets a viewer see the servers, their settings and tokens, and the users', async () => {
    for (const p of ['/console/servers', `/console/servers/${s.serverId}`, '/console/users']) {
      const r = await viewer.get(p);
      assert.equal(r.status, 200, p);
      assert.match(r.text, /<a href="\/console\/users"/);
    }
    assert.equal((await viewer.get('/console/servers/new')).text.includes('Create server'), false);
  });
});
