import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordBounce } from '../../../src/domain/bounces/record-bounce.js';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { insertMessage } from '../../domain/streams/fixtures.js';

const HOUR = 60 * 60 * 1000;

describe('suppressions API', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
  });
  after(() => s.close());

  const suppress = (stream: string, emails: unknown[], token?: string) =>
    s.request('POST', `/message-streams/${stream}/suppressions`, { body: { Suppressions: emails.map((e) => ({ EmailAddress: e })) }, token });
  const unsuppress = (stream: string, emails: unknown[]) =>
    s.request('POST', `/message-streams/${stream}/suppressions/delete`, { body: { Suppressions: emails.map((e) => ({ EmailAddress: e })) } });
  const dump = async (stream: string, query = '') => {
    const r = await s.request('GET', `/message-streams/${stream}/suppressions/dump${query}`);
    assert.equal(r.status, 200, r.text);
    return r.body.Suppressions as Array<{ EmailAddress: string; SuppressionReason: string; Origin: string; CreatedAt: string }>;
  };
  const bounce = async (email: string, type: 'HardBounce' | 'SpamComplaint') => {
    const messageId = await insertMessage(s, { streamId: 'outbound', to: [email] });
    return s.ctx.db.transaction().execute((trx) => recordBounce(trx, s.ctx, { messageId, email, type, details: 'smtp;550 5.1.1 no such user', bouncedAt: s.clock.now() }));
  };

  it('suppresses good addresses and fails bad ones item by item, with HTTP 200', async () => {
    const r = await suppress('outbound', ['Alice@Example.COM', 'not-an-address', 'bob@example.com', '', 'Name <carol@example.com>', 'a@b@c', 42, 'bob@example.com']);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.Suppressions.map((x: any) => [x.EmailAddress, x.Status, x.Message === null]),
      [
        ['Alice@Example.COM', 'Suppressed', true],
        ['not-an-address', 'Failed', false],
        ['bob@example.com', 'Suppressed', true],
        ['', 'Failed', false],
        ['Name <carol@example.com>', 'Failed', false],
        ['a@b@c', 'Failed', false],
        ['', 'Failed', false],
        ['bob@example.com', 'Suppressed', true],
      ],
    );
    assert.equal(r.body.Suppressions[1].Message, 'Invalid email address.');
    const list = await dump('outbound');
    assert.deepEqual(list.map((x) => x.EmailAddress).sort(), ['alice@example.com', 'bob@example.com']);
    assert.ok(list.every((x) => x.SuppressionReason === 'ManualSuppression' && x.Origin === 'Customer'));
    // Per stream: the broadcast stream is untouched.
    assert.deepEqual(await dump('broadcast'), []);
    // IDN domains are stored as A-labels (RFC 5891), so the same address written either way is one entry.
    await suppress('broadcast', ['Kunde@Bücher.Example', 'kunde@xn--bcher-kva.example']);
    assert.deepEqual((await dump('broadcast')).map((x) => x.EmailAddress), ['kunde@xn--bcher-kva.example']);
    assert.equal((await unsuppress('broadcast', ['KUNDE@bücher.example'])).body.Suppressions[0].Status, 'Deleted');
    assert.deepEqual(await dump('broadcast'), []);
  });

  it('takes at most 50 addresses per call and requires the Suppressions array (422)', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `u${i}@bulk.example`);
    const ok = await suppress('broadcast', fifty);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.Suppressions.length, 50);
    assert.equal((await dump('broadcast')).length, 50);
    const over = await suppress('broadcast', [...fifty, 'u50@bulk.example']);
    assert.equal(over.status, 422);
    assert.equal(typeof over.body.ErrorCode, 'number');
    assert.equal((await dump('broadcast')).length, 50);
    assert.equal((await s.request('POST', '/message-streams/broadcast/suppressions', { body: {} })).status, 422);
    // A lone item where the array belongs is read as a list of one (the service coerces scalars to arrays); a
    // bare string is no {EmailAddress} object, so it fails on its own and nothing is stored.
    const lone = await s.request('POST', '/message-streams/broadcast/suppressions', { body: { Suppressions: 'a@b.c' } });
    assert.deepEqual(lone.body.Suppressions, [{ EmailAddress: '', Status: 'Failed', Message: 'Invalid email address.' }]);
    assert.equal((await s.request('POST', '/message-streams/broadcast/suppressions')).status, 422);
    assert.equal((await s.request('POST', '/message-streams/broadcast/suppressions/delete', { body: { Suppressions: [...fifty, 'x@y.z'] } })).status, 422);
    const del = await unsuppress('broadcast', fifty);
    assert.equal(del.status, 200);
    assert.ok(del.body.Suppressions.every((x: any) => x.Status === 'Deleted'));
    assert.deepEqual(await dump('broadcast'), []);
  });

  it('answers 1226 for an unknown stream and keeps servers apart', async () => {
    assert.equal((await suppress('nope', ['a@example.com'])).body.ErrorCode, 1226);
    assert.equal((await s.request('GET', '/message-streams/nope/suppressions/dump')).body.ErrorCode, 1226);
    assert.equal((await unsuppress('nope', ['a@example.com'])).body.ErrorCode, 1226);
    const other = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Other' }, s.clock.now()));
    const theirs = await s.request('GET', '/message-streams/outbound/suppressions/dump', { token: other.token });
    assert.deepEqual(theirs.body.Suppressions, []);
    await suppress('outbound', ['only-theirs@example.com'], other.token);
    assert.ok(!(await dump('outbound')).some((x) => x.EmailAddress === 'only-theirs@example.com'));
    assert.equal((await s.request('GET', '/message-streams/outbound/suppressions/dump', { token: null })).status, 401);
  });

  it('deletes manual and hard-bounce suppressions (reactivating the address) but never spam complaints', async () => {
    const hard = await bounce('hard@example.net', 'HardBounce');
    await bounce('spam@example.net', 'SpamComplaint');
    let list = await dump('outbound', '?suppressionreason=HardBounce');
    assert.deepEqual(list.map((x) => [x.EmailAddress, x.Origin]), [['hard@example.net', 'Recipient']]);
    // Suppressing an already suppressed address keeps its reason.
    assert.equal((await suppress('outbound', ['spam@example.net'])).body.Suppressions[0].Status, 'Suppressed');
    assert.equal((await dump('outbound', '?EmailAddress=SPAM@example.net'))[0].SuppressionReason, 'SpamComplaint');

    const r = await unsuppress('outbound', ['HARD@example.net', 'spam@example.net', 'alice@example.com', 'never@example.com', 'bogus']);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.Suppressions.map((x: any) => x.Status),
      ['Deleted', 'Failed', 'Deleted', 'Deleted', 'Failed'],
    );
    assert.match(r.body.Suppressions[1].Message, /authority/);
    list = await dump('outbound');
    assert.deepEqual(list.map((x) => x.EmailAddress).sort(), ['bob@example.com', 'spam@example.net']);
    const b = await s.ctx.db.selectFrom('bounces').select(['inactive', 'can_activate']).where('id', '=', hard!.bounceId).executeTakeFirstOrThrow();
    assert.deepEqual(b, { inactive: 0, can_activate: 0 });
  });

  it('filters the dump by reason, origin, address and inclusive Moscow dates', async () => {
    s.clock.freeze('2027-03-10T20:59:59.999Z'); // 23:59:59.999 on March 10 in Moscow
    try {
      await suppress('outbound', ['late@example.com']);
      s.clock.advance(1); // 00:00 on March 11 in Moscow
      await suppress('outbound', ['early@example.com']);
      s.clock.advance(5 * HOUR);
      const day10 = await dump('outbound', '?fromdate=2027-03-10&todate=2027-03-10');
      assert.deepEqual(day10.map((x) => x.EmailAddress), ['late@example.com']);
      const day11 = await dump('outbound', '?FromDate=2027-03-11&ToDate=2027-03-11&Origin=customer&SuppressionReason=manualsuppression');
      assert.deepEqual(day11.map((x) => x.EmailAddress), ['early@example.com']);
      assert.deepEqual((await dump('outbound', '?fromdate=2027-03-10')).map((x) => x.EmailAddress), ['early@example.com', 'late@example.com']);
      assert.equal((await dump('outbound', '?origin=Recipient')).every((x) => x.Origin === 'Recipient'), true);
      assert.deepEqual(await dump('outbound', '?emailaddress=not-an-address'), []);
      assert.equal((await s.request('GET', '/message-streams/outbound/suppressions/dump?fromdate=yesterday')).status, 422);
      assert.equal((await s.request('GET', '/message-streams/outbound/suppressions/dump?suppressionreason=Bored')).status, 422);
      assert.equal((await s.request('GET', '/message-streams/outbound/suppressions/dump?origin=Martians')).status, 422);
      const rec = day10[0];
      assert.deepEqual(Object.keys(rec).sort(), ['CreatedAt', 'EmailAddress', 'Origin', 'SuppressionReason']);
      assert.equal(rec.CreatedAt, '2027-03-10T20:59:59.999+00:00');
    } finally {
      s.clock.unfreeze();
    }
  });
});
