// Shortcuts for the inbound tests: a message sent through POST /email, its VERP return path, and a raw
// report delivered to the bounce listener over real SMTP (nodemailer to 127.0.0.1:<listener port>).
import assert from 'node:assert/strict';
import nodemailer from 'nodemailer';
import { inboundSmtpPort } from '../../../src/smtp-listeners/inbound-listener.js';
import { encodeVerp } from '../../../src/infra/mime/verp.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

export const FROM = 'sender@acme.example';

/** A service with a confirmed sender (FROM) and a webhook receiver on loopback subscribed to `triggers`. */
export async function startWithWebhooks(triggers: Record<string, unknown>): Promise<{ s: TestService; hooks: WebhookReceiver; close(): Promise<void> }> {
  const s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  await addConfirmedSender(s, FROM);
  const hooks = await startWebhookReceiver();
  const w = await s.request('POST', '/webhooks', { body: { Url: hooks.url, Triggers: triggers } });
  assert.equal(w.status, 200, w.text);
  return {
    s,
    hooks,
    async close() {
      await s.close();
      await hooks.close();
    },
  };
}

export interface SentMessage {
  messageId: string;
  recipientId: number;
  recipient: string;
  verp: string;
}

export async function sendOne(s: TestService, to: string, extra: Record<string, unknown> = {}): Promise<SentMessage> {
  const r = await s.request('POST', '/email', { body: { From: FROM, To: to, Subject: 'Your receipt', TextBody: 'Thanks for your order.', ...extra } });
  assert.equal(r.status, 200, r.text);
  const messageId: string = r.body.MessageID;
  const row = await s.ctx.db.selectFrom('message_recipients').select(['id', 'email']).where('message_id', '=', messageId).executeTakeFirstOrThrow();
  return { messageId, recipientId: row.id, recipient: row.email, verp: encodeVerp(s.ctx.secrets, { messageId, recipientId: row.id }, s.config.returnPathDomain) };
}

export interface SmtpAnswer {
  ok: boolean;
  code?: number;
  response: string;
}

/** Delivers `raw` to the listener with a null reverse path (as MTAs send DSNs, RFC 5321 4.5.5). */
export async function deliverReport(s: TestService, to: string | string[], raw: string | Buffer, from = ''): Promise<SmtpAnswer> {
  const port = inboundSmtpPort(s.ctx);
  assert.ok(port, 'the inbound listener is running');
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, connectionTimeout: 5000 });
  try {
    const info = await t.sendMail({ envelope: { from, to }, raw });
    return { ok: true, response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message: string };
    return { ok: false, code: e.responseCode, response: e.response ?? e.message };
  } finally {
    t.close();
  }
}
