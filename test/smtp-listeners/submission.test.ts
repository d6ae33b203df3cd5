// SMTP submission with a real client (nodemailer): the submitted MIME becomes the same message as POST /email,
// the envelope decides who receives it, the X-PM-* headers are honoured and removed, the API's rules answer in
// SMTP terms with enhanced status codes, and the delivered copy is DKIM-signed.
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { DOMAIN, FROM, smtpError, startSubmissionRig, type SubmissionRig } from './helpers.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { waitFor } from '../helpers/wait.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const queuedId = (response: string) => /queued as ([0-9a-f-]{36})/.exec(response)?.[1];

describe('SMTP submission with nodemailer', () => {
  let r: SubmissionRig;
  before(async () => {
    r = await startSubmissionRig();
  });
  after(async () => {
    await r.close();
  });

  const details = async (id: string) => {
    const res = await r.s.request('GET', `/messages/${id}/details`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  it('stores the message as an API send would, delivers it to the envelope only, DKIM-signed', async () => {
    const info = await r.transport().sendMail({
      from: `"Shop, Inc." <${FROM}>`,
      to: ['Jane <jane@dest.example>', 'notinenvelope@dest.example'],
      cc: 'carl@dest.example',
      replyTo: 'support@shop.example',
      subject: 'Your order № 42',
      text: 'Plain body',
      html: '<p>HTML body <img src="cid:logo@shop"></p>',
      headers: { 'X-Order-Id': '42', 'In-Reply-To': '<thread@shop.example>' },
      attachments: [
        { filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 fake'), contentType: 'application/pdf' },
        { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@shop' },
      ],
      envelope: { from: 'bounces@shop.example', to: ['jane@dest.example', 'carl@dest.example', 'hidden@dest.example'] },
    });
    assert.match(info.response, /^250 2\.0\.0 Ok: queued as /);
    const id = queuedId(info.response)!;
    const d = await details(id);
    assert.equal(d.Subject, 'Your order № 42');
    assert.equal(d.From, `"Shop, Inc." <${FROM}>`);
    assert.deepEqual(d.To.map((x: { Email: string }) => x.Email), ['jane@dest.example']);
    assert.equal(d.To[0].Name, 'Jane');
    assert.deepEqual(d.Cc.map((x: { Email: string }) => x.Email), ['carl@dest.example']);
    assert.deepEqual(d.Bcc.map((x: { Email: string }) => x.Email), ['hidden@dest.example']);
    assert.equal(d.TextBody.trim(), 'Plain body');
    assert.match(d.HtmlBody, /HTML body/);
    assert.deepEqual([...d.Attachments].sort(), ['invoice.pdf', 'logo.png']);
    assert.equal(d.MessageStream, 'outbound');

    await r.s.drain();
    const got = r.sink.messages.filter((m) => m.to.some((t) => t.endsWith('@dest.example')) && /^X-Order-Id: 42$/im.test(m.raw));
    assert.deepEqual(got.flatMap((m) => m.to).sort(), ['carl@dest.example', 'hidden@dest.example', 'jane@dest.example']);
    const raw = got[0].raw;
    assert.match(raw, /^In-Reply-To: <thread@shop.example>$/m);
    assert.match(raw, /^Reply-To: support@shop.example$/m);
    assert.match(raw, /^Cc: carl@dest.example$/m);
    assert.doesNotMatch(raw, /hidden@dest\.example/, 'a Bcc recipient is not shown');
    assert.match(raw, /Content-ID: <logo@shop>/i);
    assert.match(raw, /filename="?invoice\.pdf/);
    const resolver = new Resolver();
    resolver.setServers([r.dns.address]);
    const v = await dkimVerify(Buffer.from(raw), { resolver: (name: string, rr: string) => resolver.resolve(name, rr as 'TXT') });
    assert.equal(v.results[0]?.signingDomain, DOMAIN);
    assert.equal(v.results[0]?.status.result, 'pass');
  });

  it('honours each X-PM header and delivers none of them', async () => {
    const info = await r.transport().sendMail({
      from: FROM,
      to: 'pm@dest.example',
      subject: 'pm headers',
      html: '<p><a href="https://shop.example/x">link</a></p>',
      messageId: '<client-id-1@shop.example>',
      headers: {
        'X-PM-Message-Stream': 'broadcast',
        'X-PM-Tag': 'welcome',
        'X-PM-Metadata-OrderId': '42',
        'X-PM-Metadata-color': 'blue',
        'X-PM-TrackOpens': 'true',
        'X-PM-TrackLinks': 'HtmlOnly',
        'X-PM-KeepID': 'true',
      },
    });
    const d = await details(queuedId(info.response)!);
    assert.equal(d.MessageStream, 'broadcast');
    assert.equal(d.Tag, 'welcome');
    // nodemailer writes header names in its own case (X-Pm-Metadata-Orderid); the key keeps what was sent.
    assert.deepEqual(d.Metadata, { Orderid: '42', Color: 'blue' });
    assert.equal(d.TrackOpens, true);
    assert.equal(d.TrackLinks, 'HtmlOnly');
    await r.s.drain();
    const raw = r.sink.messages.find((m) => m.to.includes('pm@dest.example'))!.raw;
    assert.doesNotMatch(raw, /^X-PM-/im);
    assert.match(raw, /^Message-ID: <client-id-1@shop.example>$/m);
    assert.match(raw, /\/t\/c\//, 'links tracked');

    // Without X-PM-KeepID mailroom assigns its own Message-ID.
    await r.transport().sendMail({ from: FROM, to: 'nokeep@dest.example', subject: 's', text: 't', messageId: '<client-id-2@shop.example>' });
    await r.s.drain();
    const raw2 = r.sink.messages.find((m) => m.to.includes('nokeep@dest.example'))!.raw;
    assert.doesNotMatch(raw2, /client-id-2/);
  });

  const refusal = async (mail: Record<string, unknown>, token?: string | null) => {
    try {
      await r.transport({ token }).sendMail({ from: FROM, to: 'x@dest.example', subject: 's', text: 't', ...mail });
    } catch (err) {
      return smtpError(err);
    }
    assert.fail('expected a refusal');
  };

  it('refuses what the API refuses, with enhanced status codes and the API message', async () => {
    await addConfirmedSender(r.s, 'pending@other.example', { confirmed: false });
    let e = await refusal({ from: 'pending@other.example' });
    assert.equal(e.code, 550);
    assert.match(e.response, /^550 5\.7\.1 The 'From' address you supplied \(pending@other\.example\) has not been confirmed/);
    e = await refusal({ from: 'stranger@nowhere.example' });
    assert.match(e.response, /^550 5\.7\.1 .*is not a Sender Signature/);

    const sup = await r.s.request('POST', '/message-streams/outbound/suppressions', { body: { Suppressions: [{ EmailAddress: 'gone@dest.example' }] } });
    assert.equal(sup.status, 200, sup.text);
    e = await refusal({ to: ['ok@dest.example', 'gone@dest.example'] });
    assert.match(e.response, /^550 5\.7\.1 You tried to send to recipient\(s\) that have been marked as inactive\. Found inactive addresses: gone@dest\.example\./);

    e = await refusal({ attachments: [{ filename: 'setup.exe', content: 'MZ' }] });
    assert.match(e.response, /^550 5\.6\.0 Attachment 'setup\.exe' has a forbidden file type/);
    e = await refusal({ headers: { 'X-PM-Message-Stream': 'nope' } });
    assert.match(e.response, /^550 5\.7\.1 The stream provided: 'nope' does not exist on this server\./);
    e = await refusal({ headers: { 'X-PM-TrackOpens': 'maybe' } });
    assert.match(e.response, /^550 5\.6\.0 The header 'X-PM-TrackOpens' must be true or false/i);
    e = await refusal({ attachments: [{ filename: 'big.bin', content: Buffer.alloc(11 * 1024 * 1024) }] });
    assert.match(e.response, /^552 5\.3\.4 /);
    // Nothing of these was stored.
    const list = await r.s.request('GET', '/messages?count=500&offset=0&recipient=x@dest.example');
    assert.equal(list.body.TotalCount, 0);
  });

  it('refuses a message just over the API size limit after parsing (552 5.3.4)', async () => {
    // 10 MB of base64 content in the API's count, under the SMTP SIZE limit of 10.5 MB.
    const e = await refusal({ attachments: [{ filename: "a.dat", content: Buffer.alloc(7_900_000) }] });
    assert.match(e.response, /^552 5\.3\.4 The message is larger than 10 MB after base64/);
  });

  it('authenticates with the server token only, and only while SmtpApiActivated', async () => {
    let e = await refusal({}, 'not-a-token-0000000000000');
    assert.match(e.response, /^535 5\.7\.8 Authentication failed/);
    e = await refusal({}, r.s.accountToken);
    assert.match(e.response, /^535 5\.7\.8 An account token cannot send/);
    // The token in the user name with another password works too; case does not matter.
    const ok = await r.transport({ token: 'whatever', user: r.s.serverToken.toUpperCase() }).sendMail({ from: FROM, to: 'u@dest.example', subject: 's', text: 't' });
    assert.match(ok.response, /^250 /);
    e = await refusal({}, null);
    assert.match(e.response, /^530 5\.7\.0 /);

    assert.equal((await r.s.request('PUT', '/server', { body: { SmtpApiActivated: false } })).status, 200);
    e = await refusal({});
    assert.match(e.response, /^535 5\.7\.1 SMTP is not activated for this server/);
    assert.equal((await r.s.request('PUT', '/server', { body: { SmtpApiActivated: true } })).status, 200);
  });

  it('refuses the 51st recipient with 452 4.5.3 and sends to the first 50', async () => {
    const to = Array.from({ length: 51 }, (_, i) => `r${i}@many.example`);
    const info = await r.transport().sendMail({ from: FROM, to, subject: 'many', text: 't' });
    assert.equal(info.accepted.length, 50);
    assert.deepEqual(info.rejected, ['r50@many.example']);
    assert.match(String((info.rejectedErrors?.[0] as { response?: string })?.response), /^452 4\.5\.3 Too many recipients/);
    const d = await details(queuedId(info.response)!);
    assert.equal(d.To.length, 50);
  });

  it('counts the message in the statistics and posts its Delivery webhook like an API send', async () => {
    const hooks = await startWebhookReceiver();
    try {
      const w = await r.s.request('POST', '/webhooks', { body: { Url: hooks.url, Triggers: { Delivery: { Enabled: true } } } });
      assert.equal(w.status, 200, w.text);
      const before = (await r.s.request('GET', '/stats/outbound')).body;
      const info = await r.transport().sendMail({ from: FROM, to: 'stats@dest.example', subject: 's', text: 't', headers: { 'X-PM-Tag': 'hooked' } });
      const id = queuedId(info.response);
      const after = (await r.s.request('GET', '/stats/outbound')).body;
      assert.equal(after.Sent, before.Sent + 1, JSON.stringify(after));
      await r.s.drain();
      const hook = await waitFor(() => hooks.requests.find((q) => q.json?.MessageID === id), { what: 'the Delivery webhook' });
      assert.equal(hook.json.RecordType, 'Delivery');
      assert.equal(hook.json.Recipient, 'stats@dest.example');
      assert.equal(hook.json.Tag, 'hooked');
    } finally {
      await hooks.close();
    }
  });
});
