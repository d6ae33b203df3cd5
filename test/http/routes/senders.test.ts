import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { envelopeDomain } from '../../../src/domain/sender-signatures/signing.js';
import { storeToken } from '../../../src/domain/tokens/tokens.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';

const RP = 'bounces.mailroom.test';
const SPF = 'spf.mailroom.test';

describe('Sender signatures API', () => {
  let s: TestService;
  let dns: TestDnsServer;
  const A = (body?: unknown) => ({ accountToken: s.accountToken, body });
  const create = (body: Record<string, unknown>) => s.request('POST', '/senders', A(body));
  const systemMails = async () =>
    (await s.ctx.db.selectFrom('jobs').select('payload').where('queue', '=', 'system-mail').orderBy('id').execute()).map((j) => JSON.parse(j.payload));

  before(async () => {
    dns = await startDnsServer();
    s = await startService({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_RETURN_PATH_DOMAIN: RP, MAILROOM_SPF_INCLUDE: SPF } });
  });
  after(async () => {
    await s.close();
    await dns.close();
  });

  it('creates a signature with its domain and first DKIM key, and queues the confirmation email', async () => {
    const r = await create({ FromEmail: 'John@Corp.test', Name: 'John Smith', ReplyToEmail: 'help@corp.test', ConfirmationPersonalNote: 'Hi, it is me.' });
    assert.equal(r.status, 200, r.text);
    const b = r.body;
    assert.equal(b.EmailAddress, 'john@corp.test');
    assert.equal(b.Domain, 'corp.test');
    assert.equal(b.Name, 'John Smith');
    assert.equal(b.ReplyToEmailAddress, 'help@corp.test');
    assert.equal(b.Confirmed, false);
    assert.equal(b.DKIMVerified, false);
    assert.equal(b.DKIMUpdateStatus, 'Pending');
    assert.match(b.DKIMPendingHost, /\._domainkey\.corp\.test$/);
    assert.equal(b.SPFTextValue, `v=spf1 a mx include:${SPF} ~all`);
    assert.equal(b.ReturnPathDomainCNAMEValue, RP);
    assert.equal(b.ConfirmationPersonalNote, 'Hi, it is me.');
    for (const k of ['SPFVerified', 'SPFHost', 'DKIMHost', 'DKIMTextValue', 'DKIMRevokedHost', 'DKIMRevokedTextValue', 'SafeToRemoveRevokedKeyFromDNS', 'WeakDKIM', 'ReturnPathDomain', 'ReturnPathDomainVerified', 'ID']) {
      assert.ok(k in b, k);
    }
    const mails = await systemMails();
    assert.equal(mails.length, 1);
    assert.equal(mails[0].to, 'john@corp.test');
    assert.match(mails[0].text, /Hi, it is me\./);
    assert.match(mails[0].text, /\/senders\/confirm\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);

    // A second address at the domain shares the domain row and its key.
    const second = (await create({ FromEmail: 'jane@corp.test', Name: 'Jane' })).body;
    assert.equal(second.DKIMPendingHost, b.DKIMPendingHost);
    const domains = await s.ctx.db.selectFrom('domains').select('id').where('name', '=', 'corp.test').execute();
    assert.equal(domains.length, 1);
  });

  it('refuses bad fields with the published codes, at each limit', async () => {
    const code = async (body: Record<string, unknown>) => {
      const r = await create(body);
      assert.equal(r.status, 422, r.text);
      return r.body.ErrorCode;
    };
    assert.equal((await s.request('POST', '/senders', { accountToken: s.accountToken })).body.ErrorCode, 502);
    assert.equal((await s.request('POST', '/senders', { accountToken: s.accountToken, raw: ' ' })).body.ErrorCode, 502);
    assert.equal((await s.request('POST', '/senders', { accountToken: s.accountToken, raw: '[1]' })).body.ErrorCode, 522);
    assert.equal(await code({ Name: 'x' }), 520);
    assert.equal(await code({ FromEmail: 'a@limits.test' }), 520);
    assert.equal(await code({ FromEmail: 'a@limits.test', Name: '  ' }), 520);
    assert.equal(await code({ FromEmail: 'not-an-address', Name: 'x' }), 522);
    assert.equal(await code({ FromEmail: 'a b@limits.test', Name: 'x' }), 522);
    assert.equal(await code({ FromEmail: 'a@limits.test', Name: 'x', ReplyToEmail: 'nope' }), 522);
    assert.equal(await code({ FromEmail: 'a@limits.test', Name: 'x\r\nBcc: victim@x.test' }), 522);
    assert.equal(await code({ FromEmail: 'a@limits.test', Name: 'x', ConfirmationPersonalNote: 'n'.repeat(401) }), 521);
    assert.equal(await code({ FromEmail: 'a@limits.test', Name: 'x'.repeat(256) }), 521);
    assert.equal(await code({ FromEmail: 'a@limits.test', Name: 'x', ReturnPathDomain: 'bounces.other.test' }), 522);
    assert.equal(await code({ FromEmail: 'someone@GMAIL.com', Name: 'x' }), 503);
    assert.equal(await code({ FromEmail: 'JOHN@corp.test', Name: 'again' }), 504);
    assert.equal(await code({ FromEmail: 42, Name: 'x' }), 522);
    const ok = await create({ FromEmail: 'a@limits.test', Name: 'x'.repeat(255), ConfirmationPersonalNote: 'n'.repeat(400) });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.ConfirmationPersonalNote.length, 400);
  });

  it('stores an IDN domain as its A-label', async () => {
    const r = await create({ FromEmail: 'Info@Bücher.test', Name: 'Bücher' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.EmailAddress, 'info@xn--bcher-kva.test');
    assert.equal(r.body.Domain, 'xn--bcher-kva.test');
    assert.match(r.body.DKIMPendingHost, /\._domainkey\.xn--bcher-kva\.test$/);
  });

  it('lists the six list fields with count/offset, shows, updates and deletes', async () => {
    const list = await s.request('GET', '/senders?count=500&offset=0', A());
    assert.equal(list.status, 200);
    assert.equal(list.body.TotalCount, list.body.SenderSignatures.length);
    assert.deepEqual(Object.keys(list.body.SenderSignatures[0]).sort(), ['Confirmed', 'Domain', 'EmailAddress', 'ID', 'Name', 'ReplyToEmailAddress']);
    const page = await s.request('GET', '/senders?count=1&offset=1', A());
    assert.deepEqual(page.body.SenderSignatures, [list.body.SenderSignatures[1]]);
    assert.equal((await s.request('GET', '/senders?count=0&offset=0', A())).status, 422);

    const id = list.body.SenderSignatures[0].ID;
    assert.equal((await s.request('GET', `/senders/${id}`, A())).body.EmailAddress, 'john@corp.test');
    assert.equal((await s.request('PUT', `/senders/${id}`, A({ ReplyToEmail: 'x@corp.test' }))).body.ErrorCode, 520);
    const up = await s.request('PUT', `/senders/${id}`, A({ Name: 'John S.', ReplyToEmail: '', ConfirmationPersonalNote: 'new note' }));
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.Name, 'John S.');
    assert.equal(up.body.ReplyToEmailAddress, '');
    assert.equal(up.body.ConfirmationPersonalNote, 'new note');
    assert.equal(up.body.EmailAddress, 'john@corp.test');

    const jane = list.body.SenderSignatures.find((x: any) => x.EmailAddress === 'jane@corp.test').ID;
    assert.deepEqual((await s.request('DELETE', `/senders/${jane}`, A())).body, { ErrorCode: 0, Message: 'Signature jane@corp.test removed.' });
    assert.equal((await s.request('GET', `/senders/${jane}`, A())).body.ErrorCode, 501);
    assert.equal((await s.request('DELETE', `/senders/${jane}`, A())).body.ErrorCode, 501);
  });

  it('resends the confirmation at most once a minute, 506 once confirmed', async () => {
    s.clock.freeze();
    const id = (await create({ FromEmail: 'resend@corp.test', Name: 'R' })).body.ID;
    // The creation's own email does not count: create, then resend at once, works (as on the hosted service).
    const first = await s.request('POST', `/senders/${id}/resend`, A());
    assert.equal(first.status, 200, first.text);
    const before = (await systemMails()).length;
    s.clock.advance(59_999);
    const early = await s.request('POST', `/senders/${id}/resend`, A());
    assert.equal(early.status, 429);
    assert.equal(early.body.ErrorCode, 429);
    assert.equal((await systemMails()).length, before);
    s.clock.advance(1);
    const r = await s.request('POST', `/senders/${id}/resend`, A());
    assert.equal(r.status, 200);
    assert.equal(r.body.ErrorCode, 0);
    assert.equal((await systemMails()).length, before + 1);
    await s.ctx.db.updateTable('sender_signatures').set({ confirmed: 1 }).where('id', '=', id).execute();
    const again = await s.request('POST', `/senders/${id}/resend`, A());
    assert.equal(again.status, 422);
    assert.equal(again.body.ErrorCode, 506);
    assert.equal((await systemMails()).length, before + 1);
    s.clock.unfreeze();
  });

  it('verifies SPF (answer without ConfirmationPersonalNote) and renews DKIM with 505 while pending', async () => {
    const sig = (await create({ FromEmail: 'ops@dkim.test', Name: 'Ops', ConfirmationPersonalNote: 'note' })).body;
    let r = await s.request('POST', `/senders/${sig.ID}/verifyspf`, A());
    assert.equal(r.body.SPFVerified, false);
    assert.ok(!('ConfirmationPersonalNote' in r.body));
    dns.set('dkim.test', [{ type: 'TXT', data: `v=spf1 redirect=_spf.dkim.test` }]);
    dns.set('_spf.dkim.test', [{ type: 'TXT', data: `v=spf1 include:${SPF} -all` }]);
    r = await s.request('POST', `/senders/${sig.ID}/verifySpf`, A());
    assert.equal(r.body.SPFVerified, true);
    assert.equal(r.body.EmailAddress, 'ops@dkim.test');

    // The first key is still pending: a renewal is "already running". This route's answer is a result body,
    // so the specification reports 505 in it with HTTP 200 ("Errors" 2), unlike rotatedkim's 422.
    r = await s.request('POST', `/senders/${sig.ID}/requestnewdkim`, A());
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ['ErrorCode', 'Message']);
    assert.equal(r.body.ErrorCode, 505);
    dns.set(sig.DKIMPendingHost, [{ type: 'TXT', data: sig.DKIMPendingTextValue }]);
    const domainId = (await s.ctx.db.selectFrom('domains').select('id').where('name', '=', 'dkim.test').executeTakeFirstOrThrow()).id;
    assert.equal((await s.request('PUT', `/domains/${domainId}/verifyDkim`, A())).body.DKIMVerified, true);
    r = await s.request('POST', `/senders/${sig.ID}/requestnewdkim`, A());
    assert.deepEqual(Object.keys(r.body).sort(), ['ErrorCode', 'Message']);
    assert.equal(r.body.ErrorCode, 0);
    const shown = (await s.request('GET', `/senders/${sig.ID}`, A())).body;
    assert.equal(shown.DKIMUpdateStatus, 'Pending');
    assert.equal(shown.DKIMHost, sig.DKIMPendingHost);
    assert.notEqual(shown.DKIMPendingHost, '');
    assert.equal((await s.request('POST', `/senders/${sig.ID}/requestnewdkim`, A())).body.ErrorCode, 505);
  });

  it('verifies a signature Return-Path by CNAME and uses it as envelope domain', async () => {
    const bad = await create({ FromEmail: 'rp@rpsig.test', Name: 'RP', ReturnPathDomain: 'pm.rpsig.test' });
    assert.equal(bad.body.ReturnPathDomainVerified, false);
    assert.equal(await envelopeDomain(s.ctx, s.accountId, 'rp@rpsig.test'), RP);
    dns.set('mail.rpsig.test', [{ type: 'CNAME', domain: RP }]);
    const ok = await s.request('PUT', `/senders/${bad.body.ID}`, A({ Name: 'RP', ReturnPathDomain: 'mail.rpsig.test' }));
    assert.equal(ok.body.ReturnPathDomain, 'mail.rpsig.test');
    assert.equal(ok.body.ReturnPathDomainVerified, true);
    assert.equal(await envelopeDomain(s.ctx, s.accountId, 'rp@rpsig.test'), 'mail.rpsig.test');
    assert.equal((await s.request('PUT', `/senders/${bad.body.ID}`, A({ Name: 'RP', ReturnPathDomain: 'rpsig.test' }))).body.ErrorCode, 522);
  });

  it('keeps accounts apart', async () => {
    const other = await s.ctx.db.insertInto('accounts').values({ name: 'Other', created_at: s.clock.now() }).returning('id').executeTakeFirstOrThrow();
    const token = 'other-account-token-000000000000002';
    await storeToken(s.ctx.db, { kind: 'account', accountId: other.id, serverId: null, value: token, now: s.clock.now() });
    const mine = (await s.request('GET', '/senders?count=1&offset=0', A())).body.SenderSignatures[0].ID;
    assert.deepEqual((await s.request('GET', '/senders?count=10&offset=0', { accountToken: token })).body, { TotalCount: 0, SenderSignatures: [] });
    for (const [m, p] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/resend'], ['POST', '/verifyspf'], ['POST', '/requestnewdkim']] as const) {
      const r = await s.request(m, `/senders/${mine}${p}`, { accountToken: token, body: m === 'PUT' ? { Name: 'x' } : undefined });
      assert.equal(r.body.ErrorCode, 501, `${m} ${p}`);
    }
    // The other account may register the same address for itself.
    assert.equal((await s.request('POST', '/senders', { accountToken: token, body: { FromEmail: 'john@corp.test', Name: 'J' } })).status, 200);
    assert.equal((await s.request('GET', '/senders?count=10&offset=0', { token: s.serverToken })).status, 401);
  });
});
