// The bootstrap variables on a database set up earlier: a value that is not a token of its kind is reported
// (serve logs it at warn, naming the variable), a value already stored is not. And `mailroom server add`'s
// domain call, through the same rules as POST /servers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ignoredBootstrapTokens } from '../../../src/domain/accounts/bootstrap.js';
import { addServer } from '../../../src/domain/operations/first-sender.js';
import { ACCOUNT_TOKEN, SERVER_TOKEN, startService, type TestService } from '../../helpers/service.js';

describe('bootstrap variables on a database set up earlier', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(() => svc.close());

  it('names each variable whose value is not already a token of its kind', async () => {
    assert.deepEqual(await ignoredBootstrapTokens(svc.ctx.database, { accountToken: null, serverToken: null }), []);
    assert.deepEqual(await ignoredBootstrapTokens(svc.ctx.database, { accountToken: ACCOUNT_TOKEN, serverToken: SERVER_TOKEN }), []);
    assert.deepEqual(await ignoredBootstrapTokens(svc.ctx.database, { accountToken: null, serverToken: 'first-send-server-token-0001' }), ['MAILROOM_SERVER_TOKEN']);
    // The account token given as the server token is not a server token.
    assert.deepEqual(await ignoredBootstrapTokens(svc.ctx.database, { accountToken: 'other-account-token-000000001', serverToken: ACCOUNT_TOKEN }), ['MAILROOM_ACCOUNT_TOKEN', 'MAILROOM_SERVER_TOKEN']);
  });

  it('server add creates a server whose token works, and refuses a taken name with the API message', async () => {
    const r = await addServer(svc.ctx, 'Staging', { sandbox: true });
    assert.equal(r.deliveryType, 'Sandbox');
    const got = await svc.request('GET', '/server', { token: r.token });
    assert.equal(got.status, 200);
    assert.equal(got.body.Name, 'Staging');
    assert.equal(got.body.DeliveryType, 'Sandbox');
    await assert.rejects(addServer(svc.ctx, 'Staging', { sandbox: false }), /A server named 'Staging' already exists/);
  });
});
