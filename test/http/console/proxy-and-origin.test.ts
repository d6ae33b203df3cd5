// Issue 27: the console behind a reverse proxy, and cross-site posts. With MAILROOM_TRUSTED_PROXIES the
// client a trusted proxy names in X-Forwarded-For is the one the sign-in limits count (so one guesser does
// not lock out everyone behind the proxy); without it the header is ignored (anyone could write it). A
// browser's cross-site POST (Origin / Sec-Fetch-Site of another site) changes nothing, sign-in included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_CLIENT_FAILURES } from '../../../src/domain/console-users/client-limit.js';
import { MAX_FAILURES } from '../../../src/domain/console-users/sessions.js';
import { createLogger } from '../../../src/infra/logger.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient } from './helpers.js';

/** A sign-in over real HTTP from 127.0.0.1 (the "proxy"), with the given extra headers. */
async function signIn(s: TestService, user: { email: string; password: string }, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ email: user.email, password: user.password }).toString(),
    redirect: 'manual',
  });
  return { status: res.status, cookie: res.headers.get('set-cookie'), text: await res.text() };
}

/** MAX_CLIENT_FAILURES wrong passwords from one forwarded client, spread over addresses so only the per-client limit can stop them. */
async function guess(s: TestService, xff: string) {
  for (let i = 0; i < MAX_CLIENT_FAILURES; i++) {
    const r = await signIn(s, { email: `guess${Math.floor(i / (MAX_FAILURES - 1))}@example.com`, password: `guess ${i}` }, { 'x-forwarded-for': xff });
    assert.equal(r.status, 401, `attempt ${i}`);
  }
}

/** A service whose log lines (JSON, at debug: the per-request lines too) are kept in `logs`. */
async function startLogged(env: Record<string, string>) {
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger('debug', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const s = await startService({ env: { MAILROOM_LOG_LEVEL: 'debug', ...env }, logger });
  await addUsers(s);
  return { s, logs };
}

/** The clients named by the sign-in refusal lines and by the request lines of POST /login. */
function loggedClients(logs: Array<Record<string, unknown>>) {
  const refused = logs.filter((l) => l.msg === 'console sign-in refused').map((l) => l.client);
  const requests = logs.filter((l) => (l.req as { url?: string } | undefined)?.url === '/login').map((l) => (l.req as { remoteAddress?: string }).remoteAddress);
  return { refused, requests };
}

describe('console behind a trusted proxy (MAILROOM_TRUSTED_PROXIES=127.0.0.1)', () => {
  let s: TestService;
  let logs: Array<Record<string, unknown>>;
  before(async () => {
    ({ s, logs } = await startLogged({ MAILROOM_TRUSTED_PROXIES: '127.0.0.1, ::1' }));
  });
  after(async () => s.close());

  it('locks only the forwarded client that guessed, not another one behind the same proxy', async () => {
    await guess(s, '203.0.113.10');
    const locked = await signIn(s, ADMIN, { 'x-forwarded-for': '203.0.113.10' });
    assert.equal(locked.status, 429);
    assert.equal(locked.cookie, null);
    // A client cannot slip out by writing its own header: the proxy appends the real peer, and the walk
    // from the right stops at the first address that is not a trusted proxy.
    assert.equal((await signIn(s, ADMIN, { 'x-forwarded-for': '198.51.100.20, 203.0.113.10' })).status, 429);
    // Another client behind the same proxy signs in.
    const other = await signIn(s, ADMIN, { 'x-forwarded-for': '198.51.100.20' });
    assert.equal(other.status, 303);
    assert.ok(other.cookie);
    // Through two trusted hops (proxy -> proxy -> mailroom) the client is still found.
    assert.equal((await signIn(s, ADMIN, { 'x-forwarded-for': '198.51.100.21, 127.0.0.1' })).status, 303);
  });

  it('names the forwarded client in the log, as the limits count it', async () => {
    const { refused, requests } = loggedClients(logs);
    assert.ok(refused.length > MAX_CLIENT_FAILURES, String(refused.length));
    assert.deepEqual([...new Set(refused)], ['203.0.113.10']);
    assert.ok(requests.length > 0, 'request lines at debug');
    assert.ok(requests.includes('203.0.113.10') && requests.includes('198.51.100.20') && requests.includes('198.51.100.21'), JSON.stringify([...new Set(requests)]));
    assert.ok(!requests.includes('127.0.0.1'), 'never the proxy itself');
  });
});

describe('console with MAILROOM_TRUSTED_PROXIES naming other peers', () => {
  let s: TestService;
  let logs: Array<Record<string, unknown>>;
  before(async () => {
    ({ s, logs } = await startLogged({ MAILROOM_TRUSTED_PROXIES: '10.0.0.0/8' }));
  });
  after(async () => s.close());

  it('does not believe X-Forwarded-For from a peer outside them: the limits and the log name the peer', async () => {
    await guess(s, '203.0.113.10');
    assert.equal((await signIn(s, ADMIN, { 'x-forwarded-for': '198.51.100.20' })).status, 429);
    const { refused, requests } = loggedClients(logs);
    assert.deepEqual([...new Set(refused)], ['127.0.0.1']);
    assert.deepEqual([...new Set(requests)], ['127.0.0.1']);
  });
});

describe('console without MAILROOM_TRUSTED_PROXIES', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addUsers(s);
  });
  after(async () => s.close());

  it('ignores X-Forwarded-For: the peer is the client', async () => {
    await guess(s, '203.0.113.10');
    // Another forwarded "client" is the same peer, 127.0.0.1, and is locked too.
    assert.equal((await signIn(s, ADMIN, { 'x-forwarded-for': '198.51.100.20' })).status, 429);
  });
});

describe('console refuses cross-site changes (login CSRF)', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { MAILROOM_PUBLIC_URL: 'https://mail.example.test' } });
    await addUsers(s);
  });
  after(async () => s.close());

  it('refuses a cross-site sign-in by Origin or Sec-Fetch-Site, with a page saying why', async () => {
    for (const headers of <Array<Record<string, string>>>[{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site', origin: 'https://mail.example.test' }]) {
      const r = await signIn(s, ADMIN, headers);
      assert.equal(r.status, 403, JSON.stringify(headers));
      assert.equal(r.cookie, null, 'no session');
      assert.match(r.text, /This request was refused because .*another (site|origin)/);
    }
    // The console's own pages: its public origin, the address it was reached at, or the browser saying so.
    for (const headers of <Array<Record<string, string>>>[{ origin: 'https://mail.example.test' }, { origin: s.url }, { 'sec-fetch-site': 'same-origin', origin: 'https://whatever.example' }, {}]) {
      const r = await signIn(s, ADMIN, headers);
      assert.equal(r.status, 303, JSON.stringify(headers));
    }
  });

  it('refuses a cross-site action even with the right CSRF token, and still wants the token without these headers', async () => {
    const admin = new ConsoleClient(s);
    assert.equal((await admin.signIn(ADMIN)).status, 303);
    const count = async () => (await s.ctx.db.selectFrom('api_tokens').select('id').where('kind', '=', 'server').execute()).length;
    const before = await count();
    const post = (headers: Record<string, string>, form: Record<string, string>) =>
      fetch(`${s.url}/console/servers/${s.serverId}/tokens`, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
        redirect: 'manual',
      });
    assert.equal((await post({ origin: 'https://evil.example' }, { _csrf: admin.csrf })).status, 403);
    assert.equal((await post({ 'sec-fetch-site': 'cross-site' }, { _csrf: admin.csrf })).status, 403);
    assert.equal((await post({}, { _csrf: 'wrong' })).status, 403, 'no browser headers: the token decides');
    assert.equal(await count(), before, 'nothing was issued');
    assert.equal((await post({ 'sec-fetch-site': 'same-origin', origin: s.url }, { _csrf: admin.csrf })).status, 200);
    assert.equal(await count(), before + 1);
    // Sign-out is a change too.
    const out = await fetch(`${s.url}/logout`, { method: 'POST', headers: { cookie: admin.cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${admin.csrf}`, redirect: 'manual' });
    assert.equal(out.status, 403);
    assert.equal((await admin.get(`/console/s/${s.serverId}/activity`)).status, 200, 'still signed in');
  });
});
