// Sender signatures in the console over real HTTP: added, edited, the confirmation sent again, deleted behind
// a confirmation page; every refused value answered with the API's own Message beside its field (and
// nothing written); viewers see the lists but are refused each change on the server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escape } from '../../../src/http/console/html.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ConsoleClient, followFlash, signedInPair } from './helpers.js';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;

/** The message shown beside the field with this id, as the page's HTML carries it (escaped). */
const besideField = (text: string, id: string) => new RegExp(`<input id="${id}"[^>]*aria-invalid="true"[^>]*>[\\s\\S]{0,400}?<p class="field-error" id="${id}-error" role="alert">([^<]*)</p>`).exec(text)?.[1];

describe('console: sender signatures', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  before(async () => {
    s = await startService();
    ({ admin, viewer } = await signedInPair(s));
  });
  after(async () => s.close());

  const follow = followFlash;
  const sigs = () => s.ctx.db.selectFrom('sender_signatures').selectAll().orderBy('id').execute();
  /** What the API answers to the same POST /senders body. */
  const apiMessage = async (body: Record<string, string>) => {
    const r = await s.request('POST', '/senders', { accountToken: s.accountToken, body });
    assert.equal(r.status, 422, r.text);
    return r.body.Message as string;
  };

  it('adds a signature, queues its confirmation and shows it unconfirmed', async () => {
    const r = await admin.post('/console/senders', { FromEmail: 'News@Shop.example', Name: 'Shop news', ReplyToEmail: 'help@shop.example', ReturnPathDomain: '', ConfirmationPersonalNote: 'Hi from the console' });
    assert.equal(r.status, 303, r.text.slice(0, 300));
    const [sig] = await sigs();
    assert.equal(sig!.email, 'news@shop.example');
    assert.equal(sig!.name, 'Shop news');
    assert.equal(sig!.reply_to, 'help@shop.example');
    assert.equal(sig!.confirmation_personal_note, 'Hi from the console');
    assert.equal(sig!.confirmed, 0);
    assert.equal(r.location, `/console/senders/${sig!.id}`);
    const jobs = await s.ctx.db.selectFrom('jobs').select(['queue']).execute();
    assert.ok(jobs.length >= 1, 'a confirmation email is queued');
    const list = await admin.get('/console/senders');
    assert.match(list.text, /<code class="wrap">news@shop\.example<\/code><\/a><\/td><td data-label="Name">Shop news<\/td><td data-label="Confirmed"><span class="warn">no<\/span>/);
    const detail = await follow(admin, r);
    assert.equal(detail.status, 200);
    assert.match(detail.text, /Sender signature news@shop\.example added/);
    assert.match(detail.text, /value="help@shop\.example"/);
  });

  it('answers each refused value with the API message beside its field, keeping what was typed, writing nothing', async () => {
    const before = (await sigs()).length;
    const cases: Array<[Record<string, string>, string]> = [
      [{ FromEmail: 'not an address', Name: 'X' }, 'ns-from'],
      [{ FromEmail: 'news@shop.example', Name: 'Again' }, 'ns-from'], // already exists
      [{ FromEmail: 'me@gmail.com', Name: 'Public' }, 'ns-from'],
      [{ FromEmail: 'a@fine.example', Name: '   ' }, 'ns-name'],
      [{ FromEmail: 'a@fine.example', Name: 'A', ReplyToEmail: 'nope' }, 'ns-reply'],
      [{ FromEmail: 'a@fine.example', Name: 'A', ReturnPathDomain: 'bounces.elsewhere.example' }, 'ns-rp'],
      [{ FromEmail: 'a@fine.example', Name: 'A', ConfirmationPersonalNote: 'n'.repeat(401) }, 'ns-note'],
    ];
    for (const [form, id] of cases) {
      const r = await admin.post('/console/senders', form);
      assert.equal(r.status, 422, `${JSON.stringify(form)}: ${r.text.slice(0, 200)}`);
      const want = escape(await apiMessage(form));
      if (id === 'ns-note') assert.match(r.text, new RegExp(`<p class="field-error" id="ns-note-error" role="alert">${want}</p>`));
      else assert.equal(besideField(r.text, id), want, JSON.stringify(form));
      assert.equal((r.text.match(/class="field-error"/g) ?? []).length, 1, 'one message, beside one field');
      assert.match(r.text, /<details class="add" open><summary>Add a sender signature/);
      assert.match(r.text, new RegExp(`value="${escape(form.FromEmail!)}"`), 'what was typed is kept');
    }
    assert.equal((await sigs()).length, before);
  });

  it('edits a signature, refusing a bad value beside its field without a partial write', async () => {
    const [sig] = await sigs();
    const base = `/console/senders/${sig!.id}`;
    const ok = await admin.post(`${base}/save`, { Name: HOSTILE, ReplyToEmail: '', ReturnPathDomain: '', ConfirmationPersonalNote: 'Edited' });
    assert.equal(ok.status, 303);
    let row = (await sigs())[0]!;
    assert.equal(row.name, HOSTILE);
    assert.equal(row.reply_to, '');
    assert.equal(row.confirmation_personal_note, 'Edited');
    const page = await admin.get(base);
    assert.doesNotMatch(page.text, /<script>alert|<img src=x/);
    assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    const list = await admin.get('/console/senders');
    assert.doesNotMatch(list.text, /<script>alert|<img src=x/);

    const bad = await admin.post(`${base}/save`, { Name: 'New name', ReplyToEmail: 'broken@', ReturnPathDomain: '', ConfirmationPersonalNote: '' });
    assert.equal(bad.status, 422);
    assert.equal(besideField(bad.text, 'edit-reply'), escape('ReplyToEmail is not a valid email address.'));
    assert.match(bad.text, /id="edit-name" name="Name" type="text" value="New name"/);
    const badRp = await admin.post(`${base}/save`, { Name: 'New name', ReplyToEmail: '', ReturnPathDomain: 'pm.other.example' });
    assert.equal(badRp.status, 422);
    const api = await s.request('PUT', `/senders/${sig!.id}`, { accountToken: s.accountToken, body: { Name: 'New name', ReturnPathDomain: 'pm.other.example' } });
    assert.equal(besideField(badRp.text, 'edit-rp'), escape(api.body.Message));
    row = (await sigs())[0]!;
    assert.equal(row.name, HOSTILE, 'nothing written by a refused edit');
  });

  it('sends the confirmation again at most once a minute, and not once confirmed', async () => {
    const [sig] = await sigs();
    const base = `/console/senders/${sig!.id}`;
    // The first confirmation went with the add and does not count; a resend does, once a minute.
    const first = await admin.post(`${base}/resend`);
    assert.equal(first.status, 303);
    assert.equal(first.location, base);
    assert.match((await follow(admin, first)).text, /Confirmation sent again to news@shop\.example/);
    const soon = await admin.post(`${base}/resend`);
    assert.equal(soon.status, 429);
    assert.match(soon.text, /try again in a minute/);
    s.clock.advance(61_000);
    assert.equal((await admin.post(`${base}/resend`)).status, 303);
    const confirmedId = await addConfirmedSender(s, 'ok@shop.example');
    assert.doesNotMatch((await admin.get(`/console/senders/${confirmedId}`)).text, /Resend confirmation/);
    assert.equal((await admin.post(`/console/senders/${confirmedId}/resend`)).status, 422);
  });

  it('lets a viewer look but refuses every change on the server', async () => {
    const [sig] = await sigs();
    const list = await viewer.get('/console/senders');
    assert.equal(list.status, 200);
    assert.match(list.text, /news@shop\.example/);
    assert.doesNotMatch(list.text, /Add a sender signature|Resend confirmation/);
    assert.match(list.text, /<a href="\/console\/senders" aria-current="page">Senders &amp; domains<\/a>/);
    const page = await viewer.get(`/console/senders/${sig!.id}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /<form method="post" action="\/console\/senders/);
    const before = await sigs();
    for (const [path, form] of [
      ['/console/senders', { FromEmail: 'v@shop.example', Name: 'V' }],
      [`/console/senders/${sig!.id}/save`, { Name: 'by viewer' }],
      [`/console/senders/${sig!.id}/resend`, {}],
      [`/console/senders/${sig!.id}/delete`, {}],
    ] as const) {
      const r = await viewer.post(path, form);
      assert.equal(r.status, 403, path);
      assert.match(r.text, /Viewers/);
    }
    assert.equal((await viewer.get(`/console/senders/${sig!.id}/delete`)).status, 403);
    assert.deepEqual(await sigs(), before);
  });

  it('deletes a signature only after its confirmation page, with the CSRF token', async () => {
    const [sig] = await sigs();
    const base = `/console/senders/${sig!.id}`;
    const count = (await sigs()).length;
    const ask = await admin.get(`${base}/delete`);
    assert.equal(ask.status, 200);
    assert.match(ask.text, /Delete the sender signature <code class="wrap">news@shop\.example<\/code>\?/);
    assert.equal((await sigs()).length, count, 'the confirmation page changes nothing');
    const forged = await admin.request('POST', `${base}/delete`, { _csrf: 'wrong' });
    assert.equal(forged.status, 403);
    assert.equal((await sigs()).length, count);
    const del = await admin.post(`${base}/delete`);
    assert.equal(del.status, 303);
    assert.equal(del.location, '/console/senders');
    assert.equal((await sigs()).some((x) => x.id === sig!.id), false);
    assert.match((await follow(admin, del)).text, /Sender signature news@shop\.example deleted/);
    // A missing signature answers as the API does (its status), with the message on a page.
    const missing = (await s.request('GET', `/senders/${sig!.id}`, { accountToken: s.accountToken })).status;
    for (const path of [base, '/console/senders/abc', '/console/senders/99999999999']) {
      const r = await admin.get(path);
      assert.equal(r.status, missing, path);
      assert.match(r.text, /Sender signature not found\./);
    }
  });
});
