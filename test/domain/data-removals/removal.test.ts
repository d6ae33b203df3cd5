// Data removal (issue 18): POST /data-removals removes every trace of an address across the account in the
// background (messages to or from it with their events, opens and clicks; bounces; webhook notifications;
// idempotency answers), keeps its suppression, reports Pending then Done, and mails RequestedBy when asked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from '../../../src/domain/servers/create-server.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const VICTIM = 'Victim@Dest.example';
const victim = VICTIM.toLowerCase();

describe('data removal', () => {
  let s: TestService;
  let sink: SmtpSink;
  let rx: WebhookReceiver;
  let other: { serverId: number; token: string };
  before(async () => {
    sink = await startSmtpSink();
    rx = await startWebhookReceiver();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await addConfirmedSender(s, 'sender@example.com');
    await addConfirmedSender(s, victim);
    other = await s.ctx.db.transaction().execute((trx) => createServer(trx, { accountId: s.accountId, name: 'Second' }, s.clock.now()));
  });
  after(async () => {
    await s.close();
    await rx.close();
    await sink.close();
  });

  const acct = (method: string, path: string, body?: unknown) => s.request(method, path, { body, accountToken: s.accountToken });
  const send = async (body: Record<string, unknown>, token?: string, headers?: Record<string, string>) => {
    const r = await s.request('POST', '/email', { body: { Subject: 's', TextBody: 't', ...body }, token, headers });
    assert.equal(r.status, 200, r.text);
    return r.body.MessageID as string;
  };
  const messageIds = async () => (await s.ctx.db.selectFrom('messages').select('id').execute()).map((r) => r.id).sort();

  it('refuses bad requests and other accounts', async () => {
    assert.equal((await s.request('POST', '/data-removals', { body: { RequestedBy: 'a@b.example', RequestedFor: 'c@d.example' } })).status, 401, 'account token');
    const missing = await acct('POST', '/data-removals', { RequestedBy: 'a@b.example' });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.ErrorCode, 403);
    assert.match(missing.body.Message, /RequestedFor/);
    assert.equal((await acct('POST', '/data-removals', { RequestedBy: 'a@b.example', RequestedFor: 'not an address' })).body.ErrorCode, 403);
    const unknown = await acct('GET', '/data-removals/999999');
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.ErrorCode, 12);
  });

  it('removes every trace of the address across the account, keeps its suppression, then reports Done', async () => {
    const hook = await s.request('POST', '/webhooks', { body: { Url: `http://127.0.0.1:${rx.port}/h`, Triggers: { Delivery: { Enabled: true }, Bounce: { Enabled: true } } } });
    assert.equal(hook.status, 200, hook.text);
    sink.rcptReplies.set(victim, { code: 550, message: '5.1.1 No such user' });
    const toVictim = await send({ From: 'sender@example.com', To: VICTIM }, undefined, { 'Idempotency-Key': 'k-victim' });
    const ccVictim = await send({ From: 'sender@example.com', To: 'bystander@dest.example', Cc: VICTIM });
    const fromVictim = await send({ From: victim, To: 'friend@dest.example' });
    const secondServer = await send({ From: 'sender@example.com', To: VICTIM }, other.token);
    const kept = await send({ From: 'sender@example.com', To: 'bystander@dest.example' }, undefined, { 'Idempotency-Key': 'k-kept' });
    await s.drain();
    // An open of the victim's copy (stored as tracking stores it).
    await s.ctx.db
      .insertInto('opens')
      .values({ message_id: toVictim, server_id: s.serverId, stream_id: 'outbound', recipient: victim, tag: null, occurred_at: s.clock.now(), user_agent: 'x', client_name: '', client_company: '', client_family: '', os_name: '', os_company: '', os_family: '', platform: 'Unknown' })
      .execute();
    assert.equal((await s.ctx.db.selectFrom('bounces').select('id').where('email', '=', victim).execute()).length, 3, 'bounced as To and Cc, on both servers');
    const suppressed = await s.ctx.db.selectFrom('suppressions').select('email').where('email', '=', victim).execute();
    assert.equal(suppressed.length, 2);
    const notes = await s.ctx.db.selectFrom('webhook_notifications').select('payload').execute();
    assert.ok(notes.some((n) => n.payload.toLowerCase().includes(victim)));

    const r = await acct('POST', '/data-removals', { RequestedBy: 'dpo@example.com', RequestedFor: VICTIM, NotifyWhenCompleted: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['ID', 'Status']);
    assert.equal(r.body.Status, 'Pending');
    assert.deepEqual((await acct('GET', `/data-removals/${r.body.ID}`)).body, { ID: r.body.ID, Status: 'Pending' });
    await s.drain();
    assert.deepEqual((await acct('GET', `/data-removals/${r.body.ID}`)).body, { ID: r.body.ID, Status: 'Done' });

    const left = await messageIds();
    for (const id of [toVictim, ccVictim, fromVictim, secondServer]) assert.ok(!left.includes(id), `message ${id} removed`);
    assert.ok(left.includes(kept), 'a message that never involved the address stays');
    const anyRow = async (table: 'message_recipients' | 'message_events' | 'opens', col: 'email' | 'recipient') =>
      (await s.ctx.db.selectFrom(table).selectAll().execute()).filter((row) => String((row as Record<string, unknown>)[col]).toLowerCase() === victim).length;
    assert.equal(await anyRow('message_recipients', 'email'), 0);
    assert.equal(await anyRow('message_events', 'recipient'), 0);
    assert.equal(await anyRow('opens', 'recipient'), 0);
    assert.equal((await s.ctx.db.selectFrom('bounces').select('id').where((eb) => eb.or([eb('email', '=', victim), eb('from_email', '=', victim)])).execute()).length, 0);
    const notesAfter = await s.ctx.db.selectFrom('webhook_notifications').select('payload').execute();
    assert.equal(notesAfter.filter((n) => n.payload.toLowerCase().includes(victim)).length, 0);
    assert.ok(notesAfter.length > 0, "the bystander's notifications stay");
    const keys = (await s.ctx.db.selectFrom('idempotency_keys').select('key').execute()).map((k) => k.key);
    assert.deepEqual(keys, ['k-kept']);
    // Kept: the suppressions, so the address is not mailed again.
    assert.equal((await s.ctx.db.selectFrom('suppressions').select('email').where('email', '=', victim).execute()).length, 2);
    const again = await s.request('POST', '/email', { body: { From: 'sender@example.com', To: VICTIM, Subject: 's', TextBody: 't' } });
    assert.equal(again.body.ErrorCode, 406);
    // RequestedBy is told.
    assert.ok(sink.messages.some((m) => m.to[0] === 'dpo@example.com' && /Data removal \d+ is complete/.test(m.raw)));
  });
});
