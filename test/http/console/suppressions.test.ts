// Console suppressions over real HTTP: adding to a chosen stream, a refused address said beside the field
// with the API's message (the good ones still added), removing, filtering by stream and reason, and the CSV
// export: every row across keyset pages, newest first, cells a spreadsheet would run as formulas made inert.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../../helpers/service.js';
import { ConsoleClient, signedInPair } from './helpers.js';

describe('console: suppressions', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  const at = (p: string) => `/console/s/${s.serverId}${p}`;
  const emails = async (stream: string) =>
    (await s.ctx.db.selectFrom('suppressions').select('email').where('server_id', '=', s.serverId).where('stream_id', '=', stream).orderBy('email').execute()).map((r) => r.email);

  before(async () => {
    s = await startService();
    ({ admin, viewer } = await signedInPair(s));
  });
  after(async () => s.close());

  it('adds to the stream chosen, and says a refused address beside the field', async () => {
    const ok = await admin.post(at('/suppressions/add'), { stream: 'broadcast', addresses: 'a@dest.example, b@dest.example' });
    assert.equal(ok.status, 303);
    assert.match(ok.location!, /stream=broadcast/);
    assert.deepEqual(await emails('broadcast'), ['a@dest.example', 'b@dest.example']);
    assert.deepEqual(await emails('outbound'), []);

    const mixed = await admin.post(at('/suppressions/add'), { stream: 'outbound', addresses: 'c@dest.example\nnot-an-address' });
    assert.equal(mixed.status, 422);
    assert.match(mixed.text, /class="field-error" id="addresses-error" role="alert">c@dest\.example suppressed\. Not suppressed: not-an-address: Invalid email address\./);
    assert.match(mixed.text, /id="s-add" name="addresses" required value="not-an-address" aria-invalid="true"/);
    assert.deepEqual(await emails('outbound'), ['c@dest.example']);

    const many = await admin.post(at('/suppressions/add'), { stream: 'outbound', addresses: Array.from({ length: 51 }, (_, i) => `m${i}@dest.example`).join(',') });
    assert.equal(many.status, 422);
    assert.match(many.text, /At most 50 addresses per request; 51 were given\./);
    assert.deepEqual(await emails('outbound'), ['c@dest.example']);
    assert.equal((await admin.post(at('/suppressions/add'), { stream: 'outbound', addresses: ' ' })).status, 422);
  });

  it('filters by stream and reason; a bad reason is said beside its field', async () => {
    await s.ctx.db.insertInto('suppressions').values({ server_id: s.serverId, stream_id: 'outbound', email: 'spam@dest.example', reason: 'SpamComplaint', origin: 'Recipient', created_at: s.clock.now() }).execute();
    const spam = (await viewer.get(at('/suppressions?stream=outbound&reason=SpamComplaint'))).text;
    assert.match(spam, /spam@dest\.example/);
    assert.doesNotMatch(spam, /c@dest\.example/);
    assert.match(spam, /spam complaints cannot be lifted/);
    const bc = (await viewer.get(at('/suppressions?stream=broadcast'))).text;
    assert.match(bc, /2 suppressed in/);
    const bad = await viewer.get(at('/suppressions?reason=Nope'));
    assert.equal(bad.status, 200);
    assert.match(bad.text, /class="field-error" id="reason-error" role="alert">SuppressionReason must be one of ManualSuppression, HardBounce, SpamComplaint\./);
  });

  it('removes, and refuses to lift a spam complaint', async () => {
    const r = await admin.post(at('/suppressions/remove'), { stream: 'broadcast', addresses: 'a@dest.example' });
    assert.equal(r.status, 303);
    assert.deepEqual(await emails('broadcast'), ['b@dest.example']);
    await admin.post(at('/suppressions/remove'), { stream: 'outbound', addresses: 'spam@dest.example' });
    assert.ok((await emails('outbound')).includes('spam@dest.example'));
  });

  it('exports every row as CSV, newest first, formulas made inert', async () => {
    const base = s.clock.now();
    const rows = Array.from({ length: 2100 }, (_, i) => ({ server_id: s.serverId, stream_id: 'broadcast', email: `r${String(i).padStart(4, '0')}@dest.example`, reason: 'HardBounce', origin: 'Recipient', created_at: base - i * 1000 }));
    for (let i = 0; i < rows.length; i += 300) await s.ctx.db.insertInto('suppressions').values(rows.slice(i, i + 300)).execute();
    const hostile = ['=HYPERLINK("http://evil.example")@dest.example', '+1@dest.example', '-x@dest.example', '@home@dest.example'];
    for (const email of hostile) await s.ctx.db.insertInto('suppressions').values({ server_id: s.serverId, stream_id: 'outbound', email, reason: 'ManualSuppression', origin: 'Customer', created_at: base }).execute();

    const csv = await viewer.get(at('/suppressions/export.csv?stream=broadcast&reason=HardBounce'));
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /^text\/csv/);
    assert.match(csv.headers.get('content-disposition')!, /attachment; filename="suppressions-\d+-broadcast\.csv"/);
    const lines = csv.text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'EmailAddress,SuppressionReason,Origin,CreatedAt');
    assert.equal(lines.length, 1 + 2100);
    assert.equal(lines[1]!.split(',')[0], '"r0000@dest.example"');
    assert.equal(lines[2100]!.split(',')[0], '"r2099@dest.example"');
    assert.equal(new Set(lines).size, lines.length);

    const out = (await viewer.get(at('/suppressions/export.csv?stream=outbound'))).text;
    assert.match(out, /^"'=HYPERLINK\(""http:\/\/evil\.example""\)@dest\.example",/m);
    assert.match(out, /^"'\+1@dest\.example",/m);
    assert.match(out, /^"'-x@dest\.example",/m);
    assert.match(out, /^"'@home@dest\.example",/m);
    assert.match(out, /^"c@dest\.example",/m);
    assert.doesNotMatch(out, /^"[=+\-@]/m);
    // A refused filter is an error page, not a broken download.
    const bad = await viewer.get(at('/suppressions/export.csv?reason=Nope'));
    assert.notEqual(bad.status, 200);
    assert.match(bad.text, /SuppressionReason must be one of/);
  });

  it('refuses viewers and forms without the CSRF token', async () => {
    const before = await emails('outbound');
    assert.equal((await viewer.post(at('/suppressions/add'), { stream: 'outbound', addresses: 'v@dest.example' })).status, 403);
    assert.equal((await viewer.post(at('/suppressions/remove'), { stream: 'outbound', addresses: 'c@dest.example' })).status, 403);
    assert.equal((await admin.post(at('/suppressions/add'), { _csrf: 'x', stream: 'outbound', addresses: 'v@dest.example' })).status, 403);
    assert.deepEqual(await emails('outbound'), before);
  });
});
