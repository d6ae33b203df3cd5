// Recipients' requests arriving at the bounce listener over real SMTP: address-change notices and unsubscribe /
// subscribe replies become bounce records of the published types (docs/reference/bounces.md, "Types and codes":
// AddressChange 128, Unsubscribe 16, Subscribe 32), none of which is inactive, so nobody is suppressed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadFixture } from '../../fixtures/load.js';
import type { TestService } from '../../helpers/service.js';
import type { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { waitFor } from '../../helpers/wait.js';
import { deliverReport, FROM, sendOne, startWithWebhooks } from './helpers.js';

describe('inbound: address changes and list requests from recipients', () => {
  let s: TestService;
  let hooks: WebhookReceiver;
  let close: () => Promise<void>;
  before(async () => {
    ({ s, hooks, close } = await startWithWebhooks({ Bounce: { Enabled: true } }));
  });
  after(() => close());

  const cases: Array<[file: string, to: string, type: string, code: number, name: string, details: RegExp]> = [
    ['unsubscribe-reply-gmail.eml', 'leaving@recipient.example', 'Unsubscribe', 16, 'Unsubscribe request', /^Unsubscribe request: Unsubscribe$/],
    ['remove-me-outlook.eml', 'pat@recipient.example', 'Unsubscribe', 16, 'Unsubscribe request', /REMOVE ME/],
    ['subscribe-request.eml', 'sam@recipient.example', 'Subscribe', 32, 'Subscribe request', /Subscribe me/],
    ['address-change-autoreply.eml', 'jane@recipient.example', 'AddressChange', 128, 'Address change', /new address: jane\.doe@newcompany\.example/],
  ];

  for (const [file, to, type, code, name, details] of cases) {
    it(`${file} -> ${type} (${code}), recorded and notified, never suppressing`, async () => {
      const m = await sendOne(s, to);
      const raw = loadFixture(file, { recipient: m.recipient, verp: m.verp, messageId: m.messageId });
      const answer = await deliverReport(s, m.verp, raw, m.recipient);
      assert.ok(answer.ok, answer.response);

      const list = await s.request('GET', `/bounces?count=10&offset=0&messageID=${m.messageId}&type=${type}`);
      assert.equal(list.status, 200, list.text);
      const [b] = list.body.Bounces;
      assert.equal(b.Type, type);
      assert.equal(b.TypeCode, code);
      assert.equal(b.Name, name);
      assert.equal(b.Email, to);
      assert.match(b.Details, details);
      assert.equal(b.Inactive, false);
      assert.equal(b.CanActivate, false);
      assert.equal(b.DumpAvailable, true);

      // Nobody is suppressed, the recipient is not marked bounced, and the address can be mailed again.
      const sup = await s.ctx.db.selectFrom('suppressions').select('id').where('server_id', '=', s.serverId).where('email', '=', to).executeTakeFirst();
      assert.equal(sup, undefined);
      const rcpt = await s.ctx.db.selectFrom('message_recipients').select('status').where('id', '=', m.recipientId).executeTakeFirstOrThrow();
      assert.notEqual(rcpt.status, 'Bounced');
      const again = await s.request('POST', '/email', { body: { From: FROM, To: to, Subject: 'x', TextBody: 'x' } });
      assert.equal(again.status, 200, again.text);
      // Nothing to activate (docs/reference/bounces.md: CanActivate false): 1003.
      const act = await s.request('PUT', `/bounces/${b.ID}/activate`);
      assert.equal(act.status, 422);
      assert.equal(act.body.ErrorCode, 1003);

      await s.drain();
      const hook = await waitFor(() => hooks.requests.find((r) => r.json?.RecordType === 'Bounce' && r.json.ID === b.ID), { what: `${type} Bounce webhook` });
      assert.equal(hook.json.Type, type);
      assert.equal(hook.json.TypeCode, code);
      assert.equal(hook.json.MessageID, m.messageId);
    });
  }

  it('counts the new types in /deliverystats', async () => {
    const r = await s.request('GET', '/deliverystats');
    assert.equal(r.status, 200, r.text);
    const count = (type: string) => r.body.Bounces.find((x: { Type?: string }) => x.Type === type)?.Count;
    assert.equal(count('Unsubscribe'), 2);
    assert.equal(count('Subscribe'), 1);
    assert.equal(count('AddressChange'), 1);
  });

  it('records nothing for a reply that only quotes our unsubscribe footer', async () => {
    const m = await sendOne(s, 'thanks@recipient.example');
    const raw = loadFixture('reply-quoting-footer.eml', { recipient: m.recipient, verp: m.verp, messageId: m.messageId });
    assert.ok((await deliverReport(s, m.verp, raw, m.recipient)).ok);
    const list = await s.request('GET', `/bounces?count=10&offset=0&messageID=${m.messageId}`);
    assert.equal(list.body.Bounces.length, 0);
  });
});
