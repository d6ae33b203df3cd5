// The console's edge over real HTTP: sign-in, sessions revoked at once, rate-limited failures, CSRF on every
// change, viewers refused on the server, security headers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_FAILURES } from '../../../src/domain/console-users/sessions.js';
import { addUser, removeUser, setPassword } from '../../../src/domain/console-users/users.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient, VIEWER } from './helpers.js';

describe('console sign-in, sessions and CSRF', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addUsers(s);
  });
  after(async () => s.close());

  const suppressed = async (email: string) =>
    (await s.ctx.db.selectFrom('suppressions').select('email').where('server_id', '=', s.serverId).where('email', '=', email).executeTakeFirst()) !== undefined;

  it('leads from / to a sign-in form with email and password inputs, under a strict CSP', async () => {
    const c = new ConsoleClient(s);
    const root = await c.get('/');
    assert.equal(root.status, 303);
    assert.equal(root.location, '/console');
    const home = await c.get('/console');
    assert.equal(home.status, 303);
    assert.match(home.location!, /^\/login/);
    const login = await c.get('/login');
    assert.equal(login.status, 200);
    assert.match(login.text, /<input id="email" name="email" type="email"/);
    assert.match(login.text, /<input id="password" name="password" type="password"/);
    const csp = login.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe/);
    assert.equal(login.headers.get('x-frame-options'), 'DENY');
    assert.equal(login.headers.get('x-content-type-options'), 'nosniff');
  });

  it('signs in with an HttpOnly SameSite cookie, and a sign-out ends the session on the server', async () => {
    const c = new ConsoleClient(s);
    const r = await c.signIn(ADMIN);
    assert.equal(r.status, 303);
    const cookie = r.headers.get('set-cookie')!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.doesNotMatch(cookie, /Secure/); // MAILROOM_PUBLIC_URL is http here
    const stolen = c.cookie;
    assert.equal((await c.post('/logout')).location, '/login');
    c.cookie = stolen; // the old cookie, replayed, is worthless
    const again = await c.get(`/console/s/${s.serverId}/activity`);
    assert.equal(again.status, 303);
    assert.match(again.location!, /^\/login/);
  });

  it('refuses a wrong password, then refuses every attempt for that address for a while', async () => {
    const c = new ConsoleClient(s);
    const wrong = await c.signIn({ email: VIEWER.email, password: 'not the password' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /Wrong email or password/);
    assert.equal(wrong.headers.get('set-cookie'), null);
    for (let i = 1; i < MAX_FAILURES; i++) await c.signIn({ email: VIEWER.email, password: `wrong ${i}` });
    const blocked = await c.signIn(VIEWER);
    assert.equal(blocked.status, 429);
    s.clock.advance(16 * 60_000);
    assert.equal((await c.signIn(VIEWER)).status, 303);
  });

  it('ends every session of a removed user, or of one whose password changed, at once', async () => {
    const a = new ConsoleClient(s);
    await a.signIn(ADMIN);
    await setPassword(s.ctx.db, ADMIN.email, 'a brand new password');
    assert.equal((await a.get(`/console/s/${s.serverId}/activity`)).status, 303);
    await setPassword(s.ctx.db, ADMIN.email, ADMIN.password);
    const b = new ConsoleClient(s);
    await b.signIn(VIEWER);
    await removeUser(s.ctx.db, VIEWER.email);
    assert.equal((await b.get(`/console/s/${s.serverId}/activity`)).status, 303);
    await addUser(s.ctx.db, { ...VIEWER, role: 'viewer' }, s.clock.now()); // back for the next tests
  });

  it('refuses a change without the CSRF token, or with another session’s, and stores nothing', async () => {
    const c = new ConsoleClient(s);
    await c.signIn(ADMIN);
    const other = new ConsoleClient(s);
    await other.signIn(ADMIN);
    const path = `/console/s/${s.serverId}/suppressions/add`;
    const none = await c.request('POST', path, { stream: 'outbound', addresses: 'csrf@example.net' });
    assert.equal(none.status, 403);
    assert.match(none.text, /CSRF/);
    const foreign = await c.post(path, { _csrf: other.csrf, stream: 'outbound', addresses: 'csrf@example.net' });
    assert.equal(foreign.status, 403);
    assert.equal(await suppressed('csrf@example.net'), false);
    const ok = await c.post(path, { stream: 'outbound', addresses: 'csrf@example.net' });
    assert.equal(ok.status, 303);
    assert.equal(await suppressed('csrf@example.net'), true);
    // Sign-out is a change too.
    assert.equal((await c.request('POST', '/logout', {})).status, 403);
  });

  it('lets a viewer read every page but refuses each change on the server', async () => {
    const c = new ConsoleClient(s);
    assert.equal((await c.signIn(VIEWER)).status, 303);
    for (const p of ['activity', 'bounces', 'suppressions', 'streams', 'templates', 'webhooks', 'stats']) {
      const r = await c.get(`/console/s/${s.serverId}/${p}`);
      assert.equal(r.status, 200, `${p}: ${r.text.slice(0, 300)}`);
    }
    for (const p of ['/console/servers', '/console/senders']) assert.equal((await c.get(p)).status, 200, p);
    const add = await c.post(`/console/s/${s.serverId}/suppressions/add`, { stream: 'outbound', addresses: 'viewer-try@example.net' });
    assert.equal(add.status, 403);
    assert.match(add.text, /Viewers/);
    assert.equal(await suppressed('viewer-try@example.net'), false);
    const stream = await c.post(`/console/s/${s.serverId}/streams/create`, { name: 'By viewer', type: 'Transactional' });
    assert.equal(stream.status, 403);
    const token = await c.post(`/console/servers/${s.serverId}/tokens`);
    assert.equal(token.status, 403);
    assert.equal((await s.ctx.db.selectFrom('message_streams').select('id').where('name', '=', 'By viewer').execute()).length, 0);
  });

  it('does not show another account’s server, and keeps API paths answering JSON', async () => {
    const c = new ConsoleClient(s);
    await c.signIn(ADMIN);
    assert.equal((await c.get('/console/s/999999/activity')).status, 404);
    const api = await s.request('GET', '/server');
    assert.equal(api.status, 200);
    assert.equal(typeof api.body.Name, 'string');
    const unauth = await s.request('GET', '/messages', { token: null });
    assert.equal(unauth.status, 401);
    // Pages are not API: the OpenAPI document (and the robustness walk built from it) does not list them.
    const paths = Object.keys((await s.request('GET', '/openapi.json', { token: null })).body.paths);
    assert.deepEqual(paths.filter((p) => p === '/' || /^\/(console|login|logout)/.test(p)), []);
  });
});
