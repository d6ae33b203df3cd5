// tier: slow
// Inputs the robustness walk once turned into 500s (or into answers without {ErrorCode, Message}), pinned
// with the exact answer each must now get.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../helpers/service.js';

describe('robustness: inputs that used to fail loudly', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  const account = (method: string, path: string, body?: unknown) => s.request(method, path, { accountToken: s.accountToken, body });
  const server = (method: string, path: string, body?: unknown) => s.request(method, path, { body });
  const expect = async (p: Promise<{ status: number; body: any; text: string }>, status: number, code: number) => {
    const r = await p;
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.ErrorCode, code, r.text);
    assert.equal(typeof r.body.Message, 'string');
  };

  it('refuses non-finite and unsafe numbers in the query (Ajv coerces "Infinity" and skips the bounds)', async () => {
    await expect(account('GET', '/domains?count=Infinity&offset=0'), 422, 511);
    await expect(account('GET', '/senders?count=10&offset=99999999999999999999'), 422, 522);
    await expect(server('GET', '/templates?count=10&offset=1e309'), 422, 403);
    await expect(server('GET', '/messages?count=10&offset=-Infinity'), 422, 403);
    await expect(server('GET', '/webhooks/1/deliveries?count=-1e400'), 422, 403);
  });

  it('refuses a NUL in the query or the path before it reaches PostgreSQL', async () => {
    await expect(server('GET', '/messages?count=10&offset=0&tag=%00'), 422, 403);
    await expect(server('GET', '/messages?count=10&offset=0&metadata_%00=x'), 422, 403);
    await expect(server('GET', '/message-streams/%00'), 422, 403);
    await expect(server('GET', '/stats/outbound?messagestream=a%00b'), 422, 403);
  });

  it('answers ids past the 32-bit range as invalid or not found, not as a database error', async () => {
    await expect(account('GET', '/senders/2147483648'), 422, 522);
    await expect(account('DELETE', '/domains/4294967296'), 422, 511);
    await expect(server('GET', '/templates/2147483648'), 422, 1101);
    await expect(server('GET', '/webhooks/2147483648'), 422, 12);
    await expect(account('PUT', '/templates/push', { SourceServerID: '1e309', DestinationServerID: 1, PerformChanges: false }), 422, 403);
    // A whole number out of range is a server that does not exist: the hosted service's fixed 601 text (issue 18).
    await expect(account('PUT', '/templates/push', { SourceServerID: 2147483648, DestinationServerID: 1, PerformChanges: false }), 422, 601);
    const zero = await account('GET', '/servers/0');
    await expect(account('GET', '/servers/2147483648'), zero.status, zero.body.ErrorCode);
    await expect(account('DELETE', '/servers/4294967296'), zero.status, zero.body.ErrorCode);
    await expect(server('GET', '/bounces/2147483648'), 422, 1001);
    await expect(server('PUT', '/bounces/4294967296/activate'), 422, 1001);
  });

  it('refuses TrackLinks values that name Object.prototype members instead of storing them', async () => {
    const msg = { From: 'nobody@example.test', To: 'a@example.test', Subject: 's', TextBody: 't' };
    for (const v of ['__proto__', 'constructor', 'toString']) await expect(server('POST', '/email', { ...msg, TrackLinks: v }), 422, 300);
  });

  it('answers URLs the router cannot decode with {ErrorCode, Message}', async () => {
    await expect(server('GET', '/message-streams/%ZZ'), 400, 403);
    await expect(server('GET', '/templates/%ED%A0%80'), 400, 403);
    await expect(server('GET', `/message-streams/${'a'.repeat(600)}`), 414, 403);
  });
});
