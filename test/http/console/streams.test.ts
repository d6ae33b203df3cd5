// Console streams over real HTTP: creating (type, chosen or derived ID, description), editing name and
// description, archiving and restoring, each refusal said beside its field with the API's message and
// nothing written; default streams offer no archive; viewers and CSRF-less forms refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { ConsoleClient, signedInPair } from './helpers.js';

describe('console: streams', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  const at = (p: string) => `/console/s/${s.serverId}${p}`;
  const stream = (id: string) => s.request('GET', `/message-streams/${id}`);

  before(async () => {
    s = await startService();
    ({ admin, viewer } = await signedInPair(s));
  });
  after(async () => s.close());

  it('creates streams, and says a refused value beside its field', async () => {
    const made = await admin.post(at('/streams/create'), { name: 'Receipts', type: 'Transactional', id: '', description: 'Order receipts' });
    assert.equal(made.status, 303);
    const r = await stream('receipts');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.MessageStreamType, 'Transactional');
    assert.equal(r.body.Description, 'Order receipts');
    const chosen = await admin.post(at('/streams/create'), { name: 'News', type: 'Broadcasts', id: 'news-2026', description: '' });
    assert.equal(chosen.status, 303);
    assert.equal((await stream('news-2026')).body.MessageStreamType, 'Broadcasts');

    const count = async () => (await s.ctx.db.selectFrom('message_streams').select('id').where('server_id', '=', s.serverId).execute()).length;
    const n = await count();
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ name: '', type: 'Transactional' }, 'name', /The stream Name is required\./],
      [{ name: 'x'.repeat(101), type: 'Transactional' }, 'name', /The stream Name must be at most 100 characters\./],
      [{ name: 'Ok', type: 'Transactional', id: 'Bad ID' }, 'id', /The stream ID must start with a letter/],
      [{ name: 'Ok', type: 'Transactional', id: 'receipts' }, 'id', /A message stream with the ID &#39;receipts&#39; already exists\./],
      [{ name: 'Ok', type: 'Transactional', description: '<b>x</b>' }, 'description', /The stream Description cannot contain HTML\./],
      [{ name: 'Ok', type: 'Smoke' }, 'type', /MessageStreamType must be Transactional, Broadcasts or Inbound\./],
    ];
    for (const [form, field, message] of cases) {
      const res = await admin.post(at('/streams/create'), form);
      assert.equal(res.status, 422, field);
      assert.match(res.text, new RegExp(`class="field-error" id="${field}-error" role="alert">${message.source}`), field);
      assert.match(res.text, new RegExp(`aria-describedby="${field}-error"`), field);
    }
    assert.equal(await count(), n);
  });

  it('edits name and description, with refusals beside the field of that stream', async () => {
    const ok = await admin.post(at('/streams/receipts/edit'), { name: 'Order receipts', description: '' });
    assert.equal(ok.status, 303);
    const r = (await stream('receipts')).body;
    assert.equal(r.Name, 'Order receipts');
    assert.equal(r.Description, ''); // cleared
    const bad = await admin.post(at('/streams/receipts/edit'), { name: ' ', description: 'kept' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, /<details open><summary>Edit<\/summary><form method="post" action="\/console\/s\/\d+\/streams\/receipts\/edit"/);
    assert.match(bad.text, /class="field-error" id="name-error" role="alert">The stream Name is required\./);
    assert.match(bad.text, /id="desc-receipts" name="description" value="kept"/);
    assert.equal((await stream('receipts')).body.Name, 'Order receipts');
  });

  it('archives and restores; a default stream offers no archive', async () => {
    const page = (await admin.get(at('/streams'))).text;
    assert.doesNotMatch(page, /streams\/outbound\/archive/);
    assert.match(page, /streams\/receipts\/archive/);
    assert.equal((await admin.post(at('/streams/receipts/archive'))).status, 303);
    assert.notEqual((await stream('receipts')).body.ArchivedAt, null);
    assert.match((await admin.get(at('/streams'))).text, /streams\/receipts\/restore/);
    assert.equal((await admin.post(at('/streams/receipts/restore'))).status, 303);
    assert.equal((await stream('receipts')).body.ArchivedAt, null);
  });

  it('refuses viewers and forms without the CSRF token', async () => {
    assert.equal((await viewer.post(at('/streams/create'), { name: 'V', type: 'Transactional' })).status, 403);
    assert.equal((await viewer.post(at('/streams/receipts/edit'), { name: 'V' })).status, 403);
    assert.equal((await viewer.post(at('/streams/receipts/archive'))).status, 403);
    assert.equal((await admin.post(at('/streams/receipts/edit'), { _csrf: 'x', name: 'V' })).status, 403);
    assert.equal((await stream('receipts')).body.Name, 'Order receipts');
    assert.doesNotMatch((await viewer.get(at('/streams'))).text, /<summary>Edit/);
  });
});
