// Domains in the console over real HTTP, checked against a real DNS server on loopback: added, every record
// shown with its host, value, copy button and status; each verify button reads DNS and the page shows what
// it found; DKIM rotation; Return-Path and tracking hosts (a refused host beside its field, with the API's
// Message); deletion behind a confirmation page; viewers refused each change on the server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escape } from '../../../src/http/console/html.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ConsoleClient, followFlash, signedInPair } from './helpers.js';

const RP = 'bounces.mailroom.test';
const SPF = 'spf.mailroom.test';

/** The host and value of the record card `id` (domain-records.ts), as text. */
function record(text: string, id: string): { title: string; host: string; value: string } | null {
  const card = new RegExp(`<section class="card record" aria-labelledby="${id}-title" data-record="${id}">([\\s\\S]*?)</section>`).exec(text)?.[1];
  if (!card) return null;
  const code = (k: string) => new RegExp(`<code id="${id}-${k}" class="record-value">([^<]*)</code><button type="button" class="copy" data-copy="#${id}-${k}"`).exec(card)?.[1] ?? '';
  return { title: /<h3[^>]*>([\s\S]*?)<\/h3>/.exec(card)![1]!, host: code('host'), value: code('value') };
}

describe('console: domains and their DNS records', () => {
  let s: TestService;
  let dns: TestDnsServer;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let id = 0;
  let base = '';
  before(async () => {
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_RETURN_PATH_DOMAIN: RP, MAILROOM_SPF_INCLUDE: SPF } });
    ({ admin, viewer } = await signedInPair(s));
  });
  after(async () => {
    await s.close();
    await dns.close();
  });

  const follow = followFlash;
  const api = (method: string, path: string, body?: unknown) => s.request(method, path, { accountToken: s.accountToken, body });
  const besideField = (text: string, fieldId: string) =>
    new RegExp(`<input id="${fieldId}"[^>]*aria-invalid="true"[^>]*>[\\s\\S]{0,400}?<p class="field-error" id="${fieldId}-error" role="alert">([^<]*)</p>`).exec(text)?.[1];

  it('adds a domain and shows every record to publish, each with copy buttons and its status', async () => {
    const r = await admin.post('/console/domains', { Name: ' Example.TEST ', ReturnPathDomain: '' });
    assert.equal(r.status, 303, r.text.slice(0, 300));
    id = (await s.ctx.db.selectFrom('domains').select('id').where('name', '=', 'example.test').executeTakeFirstOrThrow()).id;
    base = `/console/domains/${id}`;
    assert.equal(r.location, base);
    const page = await follow(admin, r);
    assert.equal(page.status, 200);
    assert.match(page.text, /Domain example\.test added/);
    const d = (await api('GET', `/domains/${id}`)).body;
    const dkim = record(page.text, 'dkim-pending')!;
    assert.equal(dkim.host, d.DKIMPendingHost);
    assert.equal(dkim.value, d.DKIMPendingTextValue);
    assert.match(dkim.title, /pending/);
    const spf = record(page.text, 'spf')!;
    assert.deepEqual([spf.host, spf.value], ['example.test', `v=spf1 a mx include:${SPF} ~all`]);
    assert.match(spf.title, /not verified/);
    const dmarc = record(page.text, 'dmarc')!;
    assert.deepEqual([dmarc.host, dmarc.value], [d.DMARCHost, escape(d.DMARCTextValue)]);
    // No Return-Path or tracking host yet: no card for them, and the cost of that is said.
    assert.equal(record(page.text, 'return-path'), null);
    assert.equal(record(page.text, 'tracking'), null);
    assert.match(page.text, /data-alignment>Return-Path not verified/);
    const list = await admin.get('/console/senders');
    assert.match(list.text, new RegExp(`<a href="${base}"><strong>example\\.test</strong></a>`));
  });

  it('answers a refused name or host with the API message beside its field, writing nothing', async () => {
    const count = async () => (await s.ctx.db.selectFrom('domains').select('id').execute()).length;
    const before = await count();
    for (const [form, field] of [
      [{ Name: '' }, 'nd-name'],
      [{ Name: 'no_dots' }, 'nd-name'],
      [{ Name: 'EXAMPLE.test' }, 'nd-name'],
      [{ Name: 'gmail.com' }, 'nd-name'],
      [{ Name: 'fine.test', ReturnPathDomain: 'pm.elsewhere.test' }, 'nd-rp'],
    ] as const) {
      const r = await admin.post('/console/domains', form);
      assert.equal(r.status, 422, JSON.stringify(form));
      const want = (await api('POST', '/domains', form)).body.Message as string;
      assert.equal(besideField(r.text, field), escape(want), JSON.stringify(form));
      assert.match(r.text, /<details class="add" open><summary>Add a domain/);
    }
    assert.equal(await count(), before);
    for (const [form, field] of [
      [{ ReturnPathDomain: 'example.test', CustomTrackingDomain: '' }, 'd-rp'],
      [{ ReturnPathDomain: '', CustomTrackingDomain: 'https://links.example.test/' }, 'd-track'],
      [{ ReturnPathDomain: 'pm.example.test', CustomTrackingDomain: 'pm.example.test' }, 'd-rp'],
    ] as const) {
      const r = await admin.post(`${base}/save`, form);
      assert.equal(r.status, 422, JSON.stringify(form));
      const want = (await api('PUT', `/domains/${id}`, form)).body.Message as string;
      assert.equal(besideField(r.text, field), escape(want), JSON.stringify(form));
      assert.match(r.text, new RegExp(`value="${escape(form.CustomTrackingDomain)}"`), 'what was typed is kept');
    }
    const row = await s.ctx.db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual([row.return_path_domain, row.custom_tracking_domain], ['', '']);
  });

  it('verifies DKIM, SPF and DMARC from DNS and shows each as verified', async () => {
    const d = (await api('GET', `/domains/${id}`)).body;
    const no = await admin.post(`${base}/verify-dkim`);
    assert.equal(no.status, 303);
    assert.match((await follow(admin, no)).text, /The DKIM key of example\.test is not verified yet/);
    dns.set(d.DKIMPendingHost, [{ type: 'TXT', data: d.DKIMPendingTextValue }]);
    const yes = await admin.post(`${base}/verify-dkim`);
    const page = await follow(admin, yes);
    assert.match(page.text, /The DKIM key of example\.test verified\./);
    const dkim = record(page.text, 'dkim')!;
    assert.equal(dkim.host, d.DKIMPendingHost);
    assert.match(dkim.title, /<span class="ok">verified<\/span>/);
    assert.equal(record(page.text, 'dkim-pending'), null);

    dns.set('example.test', [{ type: 'TXT', data: `v=spf1 include:${SPF} ~all` }]);
    dns.set(d.DMARCHost, [{ type: 'TXT', data: d.DMARCTextValue.replace('p=none', 'p=quarantine') }]);
    await admin.post(`${base}/verify-spf`);
    await admin.post(`${base}/verify-dmarc`);
    const after = await admin.get(base);
    assert.match(record(after.text, 'spf')!.title, /<span class="ok">verified<\/span>/);
    assert.match(record(after.text, 'dmarc')!.title, /<span class="ok">verified<\/span>/);
    assert.match(after.text, /Policy found: <strong>p=quarantine<\/strong>/);
    const list = await admin.get('/console/senders');
    assert.match(list.text, /<td class="nowrap" data-label="SPF"><span class="ok">verified<\/span><\/td><td class="nowrap" data-label="DMARC"><span class="ok">verified<\/span> <span class="muted small">p=quarantine<\/span>/);
  });

  it('sets and verifies the Return-Path and tracking hosts by their CNAME records', async () => {
    const saved = await admin.post(`${base}/save`, { ReturnPathDomain: 'PM-Bounces.example.test', CustomTrackingDomain: 'links.example.test' });
    assert.equal(saved.status, 303);
    let page = await follow(admin, saved);
    const rp = record(page.text, 'return-path')!;
    assert.deepEqual([rp.host, rp.value], ['pm-bounces.example.test', RP]);
    assert.match(rp.title, /not verified/);
    const target = (await api('GET', `/domains/${id}`)).body.CustomTrackingCNAMEValue as string;
    const tr = record(page.text, 'tracking')!;
    assert.deepEqual([tr.host, tr.value], ['links.example.test', target]);
    dns.set('pm-bounces.example.test', [{ type: 'CNAME', domain: `${RP}.` }]);
    dns.set('links.example.test', [{ type: 'CNAME', domain: `${target}.` }]);
    assert.match((await follow(admin, await admin.post(`${base}/verify-return-path`))).text, /The Return-Path of example\.test verified\./);
    page = await follow(admin, await admin.post(`${base}/verify-tracking`));
    assert.match(page.text, /The tracking domain links\.example\.test of example\.test verified\./);
    assert.match(record(page.text, 'return-path')!.title, /<span class="ok">verified<\/span>/);
    assert.match(record(page.text, 'tracking')!.title, /<span class="ok">verified<\/span>/);
    assert.doesNotMatch(page.text, /data-alignment/);
  });

  it('rotates the DKIM key: the new one pending beside the current, a second rotation refused meanwhile', async () => {
    const r = await admin.post(`${base}/rotate-dkim`);
    assert.equal(r.status, 303);
    const page = await follow(admin, r);
    assert.match(page.text, /A new DKIM key for example\.test is pending/);
    const d = (await api('GET', `/domains/${id}`)).body;
    assert.equal(record(page.text, 'dkim')!.host, d.DKIMHost);
    const pending = record(page.text, 'dkim-pending')!;
    assert.equal(pending.host, d.DKIMPendingHost);
    assert.match(pending.title, /New DKIM key/);
    assert.match(page.text, /<button type="submit" disabled aria-describedby="rotate-why">Rotate DKIM key<\/button>/);
    const again = await admin.post(`${base}/rotate-dkim`);
    assert.equal(again.status, (await api('POST', `/domains/${id}/rotatedkim`)).status);
    assert.equal((await api('GET', `/domains/${id}`)).body.DKIMPendingHost, d.DKIMPendingHost, 'the pending key stays');
  });

  it('lets a viewer see the records but refuses every change on the server', async () => {
    const page = await viewer.get(base);
    assert.equal(page.status, 200);
    assert.ok(record(page.text, 'spf'));
    assert.doesNotMatch(page.text, /Verify SPF|Rotate DKIM key|Save hosts/);
    const before = await s.ctx.db.selectFrom('domains').selectAll().execute();
    for (const path of ['/console/domains', `${base}/save`, `${base}/verify-dkim`, `${base}/verify-spf`, `${base}/verify-dmarc`, `${base}/verify-return-path`, `${base}/verify-tracking`, `${base}/rotate-dkim`, `${base}/delete`]) {
      const r = await viewer.post(path, { Name: 'viewer.test', ReturnPathDomain: '' });
      assert.equal(r.status, 403, path);
    }
    assert.equal((await viewer.get(`${base}/delete`)).status, 403);
    assert.deepEqual(await s.ctx.db.selectFrom('domains').selectAll().execute(), before);
  });

  it('deletes a domain, with its signatures, only after its confirmation page', async () => {
    await api('POST', '/senders', { FromEmail: 'hello@example.test', Name: 'Hello' });
    const ask = await admin.get(`${base}/delete`);
    assert.equal(ask.status, 200);
    assert.match(ask.text, /Delete the domain <strong>example\.test<\/strong>/);
    assert.match(ask.text, /Its sender signatures go with it: <code class="wrap">hello@example\.test<\/code>/);
    assert.equal((await admin.request('POST', `${base}/delete`, { _csrf: 'nope' })).status, 403);
    assert.ok(await s.ctx.db.selectFrom('domains').select('id').where('id', '=', id).executeTakeFirst());
    const del = await admin.post(`${base}/delete`);
    assert.equal(del.status, 303);
    assert.match((await follow(admin, del)).text, /Domain example\.test deleted\./);
    assert.equal(await s.ctx.db.selectFrom('domains').select('id').where('id', '=', id).executeTakeFirst(), undefined);
    assert.equal((await s.ctx.db.selectFrom('sender_signatures').select('id').execute()).length, 0);
    const gone = await admin.get(base);
    assert.equal(gone.status, (await api('GET', `/domains/${id}`)).status);
    assert.match(gone.text, /Domain not found\./);
  });
});
