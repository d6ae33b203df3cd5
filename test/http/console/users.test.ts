// Console users from the console over real HTTP: listed for everyone; added by an admin (a password typed,
// or generated and shown once), given another role, removed after a confirmation (their sessions end at once);
// the account's last admin kept, nobody demoting or removing themselves; refusals beside the field; viewers
// refused every change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeAccountUser, setUserRole } from '../../../src/domain/console-users/account-users.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, ConsoleClient, signedInPair, VIEWER } from './helpers.js';

const besideField = (text: string, name: string) => {
  if (!new RegExp(`name="${name}"[^>]*aria-invalid="true" autofocus aria-describedby="${name}-error"`).test(text)) return undefined;
  return new RegExp(`<p class="field-error" id="${name}-error" role="alert">([^<]*)</p>`).exec(text)?.[1];
};
const unescape = (s: string) => s.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('console users', () => {
  let s: TestService;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  const userId = async (email: string) => (await s.ctx.db.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
  before(async () => {
    s = await startService();
    ({ admin, viewer } = await signedInPair(s));
  });
  after(async () => s.close());

  it('lists the users for everyone; only admins get the forms', async () => {
    const v = await viewer.get('/console/users');
    assert.equal(v.status, 200);
    assert.ok(v.text.includes(ADMIN.email) && v.text.includes(VIEWER.email));
    assert.doesNotMatch(v.text, /Add user|action="\/console\/users/);
    const a = await admin.get('/console/users');
    assert.match(a.text, /<button type="submit">Add user<\/button>/);
    assert.equal((await viewer.post('/console/users', { email: 'x@example.com', role: 'admin', password: 'long enough password' })).status, 403);
    assert.equal((await viewer.post(`/console/users/${await userId(ADMIN.email)}/role`, { role: 'viewer' })).status, 403);
    assert.equal((await viewer.post(`/console/users/${await userId(ADMIN.email)}/remove`)).status, 403);
    assert.equal((await viewer.get(`/console/users/${await userId(ADMIN.email)}/remove`)).status, 403);
  });

  it('adds a user with a typed password, or a generated one shown once, who can then sign in', async () => {
    const typed = await admin.post('/console/users', { email: 'Ops@Example.com', role: 'admin', password: 'a typed password' });
    assert.equal(typed.status, 303);
    const ops = new ConsoleClient(s);
    assert.equal((await ops.signIn({ email: 'ops@example.com', password: 'a typed password' })).status, 303);
    const gen = await admin.post('/console/users', { email: 'reader@example.com', role: 'viewer', password: '' });
    assert.equal(gen.status, 200);
    assert.equal(gen.headers.get('set-cookie'), null);
    const password = /<code id="new-password"[^>]*>([^<]+)<\/code>/.exec(gen.text)![1]!;
    assert.ok(password.length >= 20);
    assert.ok(!(await admin.get('/console/users')).text.includes(password));
    const reader = new ConsoleClient(s);
    assert.equal((await reader.signIn({ email: 'reader@example.com', password })).status, 303);
    assert.equal((await reader.post('/console/users', { email: 'y@example.com', role: 'admin', password: 'long enough password' })).status, 403);
  });

  it('answers a refused value beside its field and adds nothing', async () => {
    const count = async () => (await s.ctx.db.selectFrom('console_users').select('id').execute()).length;
    const n = await count();
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ email: 'not an address', role: 'viewer', password: 'long enough password' }, 'email', '"not an address" is not an email address.'],
      [{ email: ADMIN.email.toUpperCase(), role: 'viewer', password: 'long enough password' }, 'email', `${ADMIN.email} is already a console user.`],
      [{ email: 'z@example.com', role: 'owner', password: 'long enough password' }, 'role', 'Role must be admin or viewer.'],
      [{ email: 'z@example.com', role: 'viewer', password: 'short' }, 'password', 'The password is refused: a password needs at least 10 characters.'],
    ];
    for (const [form, field, message] of cases) {
      const r = await admin.post('/console/users', form);
      assert.equal(r.status, 422, field);
      assert.equal(unescape(besideField(r.text, field) ?? ''), message, field);
      if (field !== 'password') assert.ok(r.text.includes(`value="${form.email}"`), 'the address typed is kept');
      assert.ok(!r.text.includes(`value="${form.password}"`), 'a password is never echoed');
    }
    assert.equal(await count(), n);
  });

  it('changes a role, keeps the last admin, and refuses changing one’s own', async () => {
    const viewerId = await userId(VIEWER.email);
    const up = await admin.post(`/console/users/${viewerId}/role`, { role: 'admin' });
    assert.equal(up.status, 303);
    // The viewer's session carries on, now as an admin.
    assert.match((await viewer.get('/console/users')).text, /Add user/);
    assert.equal((await admin.post(`/console/users/${viewerId}/role`, { role: 'viewer' })).status, 303);
    const self = await admin.post(`/console/users/${await userId(ADMIN.email)}/role`, { role: 'viewer' });
    assert.equal(self.status, 422);
    assert.match(self.text, /<p class="error" role="alert">You cannot change your own role: another admin can\.<\/p>/);
    const bad = await admin.post(`/console/users/${viewerId}/role`, { role: 'root' });
    assert.equal(bad.status, 422);
    assert.match(bad.text, new RegExp(`<select id="role-${viewerId}" name="role" aria-invalid="true" autofocus aria-describedby="role-${viewerId}-error">.*?</select> <button[^>]*>Change</button><p class="field-error" id="role-${viewerId}-error" role="alert">Role must be admin or viewer\\.</p>`));
    // ops@example.com (an admin, added above) demotes the first admin, then may not demote the last one: itself
    // is refused as self; the first admin, now a viewer, is refused as a viewer.
    const ops = new ConsoleClient(s);
    await ops.signIn({ email: 'ops@example.com', password: 'a typed password' });
    assert.equal((await ops.post(`/console/users/${await userId(ADMIN.email)}/role`, { role: 'viewer' })).status, 303);
    assert.equal((await admin.post(`/console/users/${await userId('ops@example.com')}/role`, { role: 'viewer' })).status, 403);
    assert.equal((await ops.post(`/console/users/${await userId(ADMIN.email)}/role`, { role: 'admin' })).status, 303);
  });

  it('keeps the only admin even against another admin, and removes users after a confirmation', async () => {
    // Leave one admin (ADMIN): ops is removed by ADMIN.
    const opsId = await userId('ops@example.com');
    const ops = new ConsoleClient(s);
    await ops.signIn({ email: 'ops@example.com', password: 'a typed password' });
    const confirm = await admin.get(`/console/users/${opsId}/remove`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /Remove the console user <strong>ops@example\.com<\/strong>/);
    assert.equal((await admin.request('POST', `/console/users/${opsId}/remove`, {})).status, 403); // no CSRF token
    const removed = await admin.post(`/console/users/${opsId}/remove`);
    assert.equal(removed.status, 303);
    assert.equal((await ops.get('/console/users')).status, 303, 'signed out at once');
    const self = await admin.post(`/console/users/${await userId(ADMIN.email)}/remove`);
    assert.equal(self.status, 422);
    assert.match(self.text, /You cannot remove yourself/);
    assert.equal((await admin.get('/console/users/999999/remove')).status, 404);
    assert.equal((await admin.post('/console/users/999999/remove')).status, 422);
    // A second admin demotes ADMIN; the second is then the only admin. From the console only an admin acts and
    // none acts on themselves, so the rule is met only by a race: the domain keeps it whoever asks.
    assert.equal((await admin.post('/console/users', { email: 'second@example.com', role: 'admin', password: 'second password' })).status, 303);
    const second = new ConsoleClient(s);
    await second.signIn({ email: 'second@example.com', password: 'second password' });
    const secondId = await userId('second@example.com');
    assert.equal((await second.post(`/console/users/${await userId(ADMIN.email)}/role`, { role: 'viewer' })).status, 303);
    assert.equal((await admin.post(`/console/users/${secondId}/remove`)).status, 403);
    const adminId = await userId(ADMIN.email);
    await assert.rejects(removeAccountUser(s.ctx, s.accountId, adminId, secondId), /second@example\.com is the account's only admin and cannot be removed/);
    await assert.rejects(setUserRole(s.ctx, s.accountId, adminId, secondId, 'viewer'), /second@example\.com is the account's only admin: make another user admin first/);
    assert.equal((await s.ctx.db.selectFrom('console_users').select('role').where('id', '=', secondId).executeTakeFirstOrThrow()).role, 'admin');
  });
});
