// Fake bounces: mail to the bounce-testing domain (the hosted service's own, and MAILROOM_BOUNCE_TESTING_DOMAIN)
// is never sent; each address produces the bounce of its type through the path of a real bounce: the bounce
// record (GET /bounces), the Bounce webhook, the suppression of a HardBounce. On Live and Sandbox servers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { recipientsOf } from './helpers.js';

const FROM = 'app@shop.example';
const HOSTED = 'bounce-testing.postmarkapp.com';
const OWN = 'bounces.test.example';

/** Address -> the type it produces (the hosted service's guide, plus mailroom's +tag). */
const CASES: Array<[string, string]> = [
  [`HardBounce@${HOSTED}`, 'HardBounce'],
  [`SoftBounce@${HOSTED}`, 'SoftBounce'],
  [`Transient@${HOSTED}`, 'Transient'],
  [`Unsubscribe@${HOSTED}`, 'Unsubscribe'],
  [`Subscribe@${HOSTED}`, 'Subscribe'],
  [`AutoResponder@${HOSTED}`, 'AutoResponder'],
  [`AddressChange@${HOSTED}`, 'AddressChange'],
  [`DnsError@${HOSTED}`, 'DnsError'],
  [`SpamNotification@${HOSTED}`, 'SpamNotification'],
  [`OpenRelayTest@${HOSTED}`, 'OpenRelayTest'],
  [`VirusNotification@${HOSTED}`, 'VirusNotification'],
  [`ChallengeVerification@${HOSTED}`, 'ChallengeVerification'],
  [`BadEmailAddress@${HOSTED}`, 'BadEmailAddress'],
  [`ManuallyDeactivated@${HOSTED}`, 'ManuallyDeactivated'],
  [`blocked@${HOSTED}`, 'Blocked'],
  [`dmarc_policy@${HOSTED}`, 'DMARCPolicy'],
  [`Unknown@${HOSTED}`, 'Unknown'],
  [`Hard_Bounce+run7@${HOSTED}`, 'HardBounce'],
  // SpamComplaint is not a fake bounce type (the guide excludes it): the default, a hard bounce.
  [`SpamComplaint@${HOSTED}`, 'HardBounce'],
  [`anyone@${HOSTED}`, 'HardBounce'],
  [`softbounce@${OWN}`, 'SoftBounce'],
];

describe('fake bounces from the bounce-testing domain', () => {
  let s: TestService;
  let sink: SmtpSink;
  let rx: WebhookReceiver;
  let sandboxToken: string;
  before(async () => {
    sink = await startSmtpSink();
    rx = await startWebhookReceiver();
    s = await startService({
      env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true', MAILROOM_BOUNCE_TESTING_DOMAIN: OWN.toUpperCase() },
    });
    await addConfirmedSender(s, FROM);
    const created = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'CI', DeliveryType: 'Sandbox' } });
    assert.equal(created.status, 200, created.text);
    sandboxToken = created.body.ApiTokens[0];
    for (const token of [s.serverToken, sandboxToken]) {
      const hook = await s.request('POST', '/webhooks', { token, body: { Url: `${rx.url}/hook`, Triggers: { Bounce: { Enabled: true }, Delivery: { Enabled: true } } } });
      assert.equal(hook.status, 200, hook.text);
    }
  });
  after(async () => {
    await s.close();
    await sink.close();
    await rx.close();
  });

  const send = async (token: string, to: string[], extra: Record<string, unknown> = {}) => {
    const r = await s.request('POST', '/email', { token, body: { From: FROM, To: to.join(', '), Subject: 'Bounce me', TextBody: 'hi', ...extra } });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const bouncesOf = async (token: string, id: string) => {
    const r = await s.request('GET', `/bounces?count=100&offset=0&messageID=${id}`, { token });
    assert.equal(r.status, 200, r.text);
    return r.body.Bounces as Array<{ Email: string; Type: string; Inactive: boolean; Details: string; MessageStream: string }>;
  };
  const hooksFor = (id: string) => rx.requests.filter((q) => q.json?.MessageID === id);

  for (const [server, token] of [['Live', () => s.serverToken], ['Sandbox', () => sandboxToken]] as const) {
    it(`${server}: each address gives its bounce type, record and webhook; nothing reaches the SMTP sink`, async () => {
      const sent = sink.messages.length;
      const tag = server.toLowerCase();
      // Tagged so that the Live run's hard bounces do not suppress the Sandbox run's addresses (and vice versa:
      // suppressions are per server anyway).
      const ids: string[] = [];
      for (let i = 0; i < CASES.length; i += 10) ids.push(await send(token(), CASES.slice(i, i + 10).map(([a]) => a)));
      await s.drain();
      assert.equal(sink.messages.length, sent, 'nothing was sent');
      const bounces = (await Promise.all(ids.map((id) => bouncesOf(token(), id)))).flat();
      for (const [address, type] of CASES) {
        const b = bounces.find((x) => x.Email === address.toLowerCase());
        assert.ok(b, `${tag}: a bounce for ${address}`);
        assert.equal(b.Type, type, address);
        assert.equal(b.Inactive, type === 'HardBounce' || type === 'BadEmailAddress' || type === 'ManuallyDeactivated', address);
        assert.match(b.Details, /bounce-testing domain/);
      }
      const bounceHooks = () => ids.flatMap(hooksFor).filter((q) => q.json.RecordType === 'Bounce');
      await waitFor(() => bounceHooks().length >= CASES.length, { what: 'bounce webhooks' });
      const hooks = ids.flatMap(hooksFor);
      assert.equal(hooks.filter((q) => q.json.RecordType === 'Bounce').length, CASES.length);
      assert.equal(hooks.filter((q) => q.json.RecordType === 'Delivery').length, 0, 'no Delivery webhook for a black hole');
      assert.deepEqual(
        CASES.map(([a]) => hooks.find((q) => q.json.Email === a.toLowerCase())?.json.Type),
        CASES.map(([, t]) => t),
      );
      // Every recipient is settled and every message finished.
      for (const id of ids) for (const r of await recipientsOf(s, id)) assert.notEqual(r.settled_at, null, r.email);
      for (const id of ids) assert.equal((await s.request('GET', `/messages/outbound/${id}/details`, { token: token() })).body.Status, 'Sent');
    });

    it(`${server}: a HardBounce suppresses the address; the next send to it is refused (406)`, async () => {
      const address = `hardbounce+${server}@${HOSTED}`;
      await send(token(), [address]);
      await s.drain();
      const sup = await s.request('GET', `/message-streams/outbound/suppressions/dump?emailaddress=${encodeURIComponent(address)}`, { token: token() });
      assert.equal(sup.status, 200, sup.text);
      assert.deepEqual(sup.body.Suppressions.map((x: { EmailAddress: string; SuppressionReason: string }) => [x.EmailAddress, x.SuppressionReason]), [[address.toLowerCase(), 'HardBounce']]);
      const again = await s.request('POST', '/email', { token: token(), body: { From: FROM, To: address, Subject: 's', TextBody: 't' } });
      assert.equal(again.body.ErrorCode, 406, again.text);
    });
  }

  it('X-PM-Bounce-Type names the type; real recipients of the same message are delivered (Live) or not (Sandbox)', async () => {
    const sent = sink.messages.length;
    const live = await send(s.serverToken, [`someone@${HOSTED}`, 'jane@dest.example'], { Headers: [{ Name: 'X-PM-Bounce-Type', Value: 'SoftBounce' }] });
    const sandbox = await send(sandboxToken, [`someone@${HOSTED}`, 'jane@dest.example'], { Headers: [{ Name: 'X-PM-Bounce-Type', Value: 'Transient' }] });
    await s.drain();
    assert.deepEqual((await bouncesOf(s.serverToken, live)).map((b) => [b.Email, b.Type]), [[`someone@${HOSTED}`, 'SoftBounce']]);
    assert.deepEqual((await bouncesOf(sandboxToken, sandbox)).map((b) => [b.Email, b.Type]), [[`someone@${HOSTED}`, 'Transient']]);
    const got = sink.messages.slice(sent);
    assert.deepEqual(got.map((m) => m.to), [['jane@dest.example']], 'only the Live real recipient, and no copy to the black hole');
  });
});
