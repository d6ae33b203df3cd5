// Failed sign-ins limited per client address as well as per account address: one client spraying passwords
// over many addresses is stopped, and the count lives in the database (another process sees it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_CLIENT_FAILURES, signInFromClient } from '../../../src/domain/console-users/client-limit.js';
import { MAX_FAILURES } from '../../../src/domain/console-users/sessions.js';
import { startService, type TestService } from '../../helpers/service.js';
import { ADMIN, addUsers, ConsoleClient } from './helpers.js';

describe('console sign-in limit per client', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addUsers(s);
  });
  after(async () => s.close());

  it('refuses every sign-in from a client after too many failures over many addresses, then lets it in again', async () => {
    const c = new ConsoleClient(s);
    // Under the per-address limit for each address, so only the per-client limit can stop this.
    for (let i = 0; i < MAX_CLIENT_FAILURES; i++) {
      const r = await c.signIn({ email: `guess${Math.floor(i / (MAX_FAILURES - 1))}@example.com`, password: `guess ${i}` });
      assert.equal(r.status, 401, `attempt ${i}`);
    }
    const blocked = await c.signIn(ADMIN); // the right password, from the same client
    assert.equal(blocked.status, 429);
    assert.match(blocked.text, /Too many failed sign-ins/);
    assert.equal(blocked.headers.get('set-cookie'), null);
    // Another client (another process, another address) is not blocked by it ...
    assert.equal((await signInFromClient(s.ctx.db, '192.0.2.7', ADMIN.email, ADMIN.password, s.clock.now())).kind, 'ok');
    // ... and the count is in the database, so any process refuses this client.
    assert.equal((await signInFromClient(s.ctx.db, '127.0.0.1', ADMIN.email, ADMIN.password, s.clock.now())).kind, 'throttled');
    s.clock.advance(16 * 60_000);
    assert.equal((await c.signIn(ADMIN)).status, 303);
  });

  it('keeps counting a client that signs in to its own account between guesses', async () => {
    for (let i = 0; i < MAX_CLIENT_FAILURES - 1; i++) assert.equal((await signInFromClient(s.ctx.db, '198.51.100.9', `x${i}@example.com`, 'nope', s.clock.now())).kind, 'wrong');
    assert.equal((await signInFromClient(s.ctx.db, '198.51.100.9', ADMIN.email, ADMIN.password, s.clock.now())).kind, 'ok');
    assert.equal((await signInFromClient(s.ctx.db, '198.51.100.9', 'y@example.com', 'nope', s.clock.now())).kind, 'wrong');
    assert.equal((await signInFromClient(s.ctx.db, '198.51.100.9', ADMIN.email, ADMIN.password, s.clock.now())).kind, 'throttled');
  });

  it('does not let a typed address pose as a client’s counter', async () => {
    for (let i = 0; i < MAX_FAILURES + 1; i++) assert.equal((await signInFromClient(s.ctx.db, '203.0.113.5', ' IP:192.0.2.99', 'x', s.clock.now())).kind, 'wrong');
    const posing = await s.ctx.db.selectFrom('console_login_failures').select('id').where('email', 'like', '%192.0.2.99%').execute();
    assert.equal(posing.length, 0);
    assert.equal((await signInFromClient(s.ctx.db, '192.0.2.99', ADMIN.email, ADMIN.password, s.clock.now())).kind, 'ok');
  });
});
