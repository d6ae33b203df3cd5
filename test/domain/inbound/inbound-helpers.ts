// Shortcuts for the inbound-processing tests: a service whose server posts inbound mail to a webhook
// receiver on loopback, a loopback DNS server answering the senders' SPF records, and mail sent to the
// inbound listener over real SMTP (nodemailer).
import assert from 'node:assert/strict';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Logger } from '../../../src/infra/logger.js';
import { inboundSmtpPort } from '../../../src/smtp-listeners/inbound-listener.js';
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js';
import { startService, type TestService } from '../../helpers/service.js';
import { smtpDialogue } from '../../helpers/raw-smtp.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

export interface InboundSetup {
  s: TestService;
  app: WebhookReceiver;
  dns: TestDnsServer;
  /** "<InboundHash>@<inbound domain>" */
  address: string;
  hash: string;
  close(): Promise<void>;
}

/** `startWorker`: the job runner runs (as in a worker process) instead of the tests' drain(). */
export async function startInbound(env: Record<string, string> = {}, logger?: Logger, o: { startWorker?: boolean } = {}): Promise<InboundSetup> {
  const dns = await startDnsServer();
  // The senders' domain authorizes loopback, so SPF passes for mail sent from the test (RFC 7208).
  dns.set('customer.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
  const s = await startService({ env: { MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true', MAILROOM_DNS_SERVERS: dns.address, ...env }, logger, startWorker: o.startWorker });
  const app = await startWebhookReceiver();
  const put = await s.request('PUT', '/server', { body: { InboundHookUrl: `${app.url}/inbound` } });
  assert.equal(put.status, 200, put.text);
  const hash: string = put.body.InboundHash;
  return {
    s,
    app,
    dns,
    address: put.body.InboundAddress,
    hash,
    async close() {
      await s.close();
      await app.close();
      await dns.close();
    },
  };
}

export interface SmtpAnswer {
  ok: boolean;
  code?: number;
  response: string;
}

/** Sends one message to the inbound listener; `to` is the envelope (default: the message's To). */
export async function sendInbound(s: TestService, mail: Mail.Options, envelopeTo?: string | string[]): Promise<SmtpAnswer> {
  const port = inboundSmtpPort(s.ctx);
  assert.ok(port, 'the inbound listener is running');
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, connectionTimeout: 5000 });
  try {
    const info = await t.sendMail({
      from: '"Jane Customer" <jane@customer.example>',
      subject: 'Help with my order',
      text: 'Hello, my order did not arrive.',
      ...mail,
      ...(envelopeTo ? { envelope: { from: 'jane@customer.example', to: envelopeTo } } : {}),
    });
    return { ok: true, response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message: string };
    return { ok: false, code: e.responseCode, response: e.response ?? e.message };
  } finally {
    t.close();
  }
}

/** A raw SMTP dialogue with the inbound listener: the greeting, then each command's whole reply in turn. */
export async function dialogue(s: TestService, commands: string[]): Promise<string[]> {
  const port = inboundSmtpPort(s.ctx);
  assert.ok(port, 'the inbound listener is running');
  return smtpDialogue(port, commands);
}
