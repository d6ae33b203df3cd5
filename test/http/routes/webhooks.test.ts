import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { startService, type TestService } from '../../helpers/service.js';

const URL_A = 'https://hooks.example.com/mailroom';

describe('webhooks API', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  const create = (body: unknown) => s.request('POST', '/webhooks', { body });

  it('creates with defaults, shows the signing secret once and every trigger key', async () => {
    const r = await create({ Url: URL_A });
    assert.equal(r.status, 200, r.text);
    assert.equal(typeof r.body.ID, 'number');
    assert.equal(r.body.Url, URL_A);
    assert.equal(r.body.MessageStream, 'outbound');
    assert.match(r.body.SigningSecret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(r.body.Triggers, {
      Open: { Enabled: false, PostFirstOpenOnly: false },
      Click: { Enabled: false },
      Delivery: { Enabled: false },
      Bounce: { Enabled: false, IncludeContent: false },
      SpamComplaint: { Enabled: false, IncludeContent: false },
      SubscriptionChange: { Enabled: false },
    });
    assert.deepEqual(r.body.HttpAuth, { Username: '', Password: '' });
    assert.deepEqual(r.body.HttpHeaders, []);
    const again = await s.request('GET', `/webhooks/${r.body.ID}`);
    assert.equal(again.status, 200);
    assert.equal('SigningSecret' in again.body, false);
  });

  it('never shows or stores the HttpAuth password in plain text', async () => {
    const r = await create({
      Url: URL_A,
      MessageStream: 'broadcast',
      HttpAuth: { Username: 'hook', Password: 'p4ss-w0rd' },
      HttpHeaders: [{ Name: 'X-Custom', Value: 'v1' }],
      Triggers: { Open: { Enabled: true, PostFirstOpenOnly: true }, Bounce: { Enabled: true, IncludeContent: true } },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.MessageStream, 'broadcast');
    assert.deepEqual(r.body.HttpAuth, { Username: 'hook', Password: '********' });
    assert.deepEqual(r.body.HttpHeaders, [{ Name: 'X-Custom', Value: 'v1' }]);
    assert.deepEqual(r.body.Triggers.Open, { Enabled: true, PostFirstOpenOnly: true });
    assert.ok(!(await s.request('GET', `/webhooks/${r.body.ID}`)).text.includes('p4ss-w0rd'));
    const row = await s.ctx.db.selectFrom('webhooks').selectAll().where('id', '=', r.body.ID).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes('p4ss-w0rd'));
    assert.ok(!JSON.stringify(row).includes(r.body.SigningSecret));
    assert.equal(s.ctx.secrets.open(row.http_auth_password), 'p4ss-w0rd');
  });

  it('refuses bad URLs with 606, at create and update', async () => {
    for (const Url of [undefined, '', 'ftp://example.com/x', '/relative', 'not a url', 'http://user:pw@example.com/', 'http://127.0.0.1:8080/',
      'http://10.1.2.3/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data', 'http://localhost:9000/', 'http://0x7f.1/', `https://example.com/${'x'.repeat(2048)}`]) {
      const r = await create({ Url });
      assert.equal(r.status, 422, String(Url));
      assert.equal(r.body.ErrorCode, 606, String(Url));
    }
    const longest = `https://example.com/${'x'.repeat(2048 - 'https://example.com/'.length)}`;
    assert.equal((await create({ Url: longest })).status, 200, 'a 2048-character Url is accepted');
    assert.equal((await create({ Url: `${longest}y` })).body.ErrorCode, 606, 'one more character is refused');
    const ok = await create({ Url: URL_A });
    const r = await s.request('PUT', `/webhooks/${ok.body.ID}`, { body: { Url: 'http://192.168.1.1/' } });
    assert.equal(r.body.ErrorCode, 606);
  });

  it('checks the stream: unknown stream is 1226 on create and on list', async () => {
    assert.equal((await create({ Url: URL_A, MessageStream: 'nope' })).body.ErrorCode, 1226);
    const list = await s.request('GET', '/webhooks?MessageStream=nope');
    assert.equal(list.status, 422);
    assert.equal(list.body.ErrorCode, 1226);
    const bc = await s.request('GET', '/webhooks?messageStream=broadcast');
    assert.equal(bc.status, 200);
    assert.ok(bc.body.Webhooks.length >= 1);
    assert.ok(bc.body.Webhooks.every((w: any) => w.MessageStream === 'broadcast'));
    const all = await s.request('GET', '/webhooks');
    assert.ok(all.body.Webhooks.length > bc.body.Webhooks.length);
  });

  it('PUT changes only the triggers passed; without Triggers none change', async () => {
    const c = await create({ Url: URL_A, HttpAuth: { Username: 'u', Password: 'secret-1' }, Triggers: { Delivery: { Enabled: true }, Open: { Enabled: true, PostFirstOpenOnly: true } } });
    const id = c.body.ID;
    let r = await s.request('PUT', `/webhooks/${id}`, { body: { Triggers: { Click: { Enabled: true }, Open: { PostFirstOpenOnly: false } } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.Triggers.Delivery, { Enabled: true });
    assert.deepEqual(r.body.Triggers.Click, { Enabled: true });
    assert.deepEqual(r.body.Triggers.Open, { Enabled: true, PostFirstOpenOnly: false });
    r = await s.request('PUT', `/webhooks/${id}`, { body: { Url: 'https://other.example.org/h', HttpHeaders: [{ Name: 'A', Value: 'b' }] } });
    assert.equal(r.body.Url, 'https://other.example.org/h');
    assert.deepEqual(r.body.Triggers.Click, { Enabled: true });
    assert.deepEqual(r.body.HttpHeaders, [{ Name: 'A', Value: 'b' }]);
    // Sending back what GET shows (the mask) keeps the password.
    r = await s.request('PUT', `/webhooks/${id}`, { body: { HttpAuth: r.body.HttpAuth } });
    const row = await s.ctx.db.selectFrom('webhooks').select('http_auth_password').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(s.ctx.secrets.open(row.http_auth_password), 'secret-1');
    r = await s.request('PUT', `/webhooks/${id}`, { body: { HttpAuth: { Username: '', Password: '' } } });
    assert.deepEqual(r.body.HttpAuth, { Username: '', Password: '' });
  });

  it('refuses hostile headers and auth values, at the 20-header limit', async () => {
    const headers = (n: number) => Array.from({ length: n }, (_, i) => ({ Name: `X-H${i}`, Value: 'v' }));
    assert.equal((await create({ Url: URL_A, HttpHeaders: headers(20) })).status, 200);
    const bad = [
      { HttpHeaders: headers(21) },
      { HttpHeaders: [{ Name: 'X-A', Value: 'ok\r\nX-Injected: 1' }] },
      { HttpHeaders: [{ Name: 'X-A', Value: 'snowman \u2603' }] },
      { HttpHeaders: [{ Name: 'Bad Name', Value: 'v' }] },
      { HttpHeaders: [{ Name: 'Content-Length', Value: '1' }] },
      { HttpHeaders: [{ Name: 'X-Mailroom-Signature', Value: 'forged' }] },
      { HttpHeaders: [{ Name: 'x-a', Value: '1' }, { Name: 'X-A', Value: '2' }] },
      { HttpAuth: { Username: 'a:b', Password: 'x' } },
      { HttpAuth: { Username: 'a', Password: 'x\ny' } },
    ];
    for (const b of bad) {
      const r = await create({ Url: URL_A, ...b });
      assert.equal(r.status, 422, JSON.stringify(b));
      assert.equal(r.body.ErrorCode, 403, JSON.stringify(b));
    }
    assert.equal((await create({ Url: URL_A, Triggers: { Open: { Enabled: 'yes' } } })).status, 422);
  });

  it("another server's webhook is not found (422, ErrorCode 12); delete answers ErrorCode 0", async () => {
    const other = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Other' }, s.clock.now()));
    const mine = await create({ Url: URL_A });
    const theirs = await s.request('POST', '/webhooks', { body: { Url: URL_A }, token: other.token });
    assert.equal(theirs.status, 200);
    for (const [m, p] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/rotate-secret'], ['GET', '/deliveries']] as const) {
      const r = await s.request(m, `/webhooks/${theirs.body.ID}${p}`, m === 'PUT' ? { body: { Url: URL_A } } : {});
      assert.equal(r.status, 422, `${m} ${p}`);
      assert.equal(r.body.ErrorCode, 12, `${m} ${p}`);
    }
    const listed = await s.request('GET', '/webhooks');
    assert.ok(!listed.body.Webhooks.some((w: any) => w.ID === theirs.body.ID));
    for (const id of ['abc', '0', '-1', '99999999']) assert.equal((await s.request('GET', `/webhooks/${id}`)).body.ErrorCode, 12, id);

    const del = await s.request('DELETE', `/webhooks/${mine.body.ID}`);
    assert.equal(del.status, 200);
    assert.equal(del.body.ErrorCode, 0);
    assert.match(del.body.Message, /removed/);
    assert.equal((await s.request('GET', `/webhooks/${mine.body.ID}`)).body.ErrorCode, 12);
    assert.equal((await s.request('DELETE', `/webhooks/${mine.body.ID}`)).body.ErrorCode, 12);
    assert.equal((await s.request('GET', '/webhooks', { token: null })).status, 401);
  });

  it('rotates the signing secret', async () => {
    const c = await create({ Url: URL_A });
    const r = await s.request('POST', `/webhooks/${c.body.ID}/rotate-secret`);
    assert.equal(r.status, 200);
    assert.match(r.body.SigningSecret, /^whsec_/);
    assert.notEqual(r.body.SigningSecret, c.body.SigningSecret);
    const row = await s.ctx.db.selectFrom('webhooks').select('signing_secret').where('id', '=', c.body.ID).executeTakeFirstOrThrow();
    assert.equal(s.ctx.secrets.open(row.signing_secret), r.body.SigningSecret);
    const d = await s.request('GET', `/webhooks/${c.body.ID}/deliveries`);
    assert.deepEqual(d.body, { TotalCount: 0, Deliveries: [] });
  });
});
