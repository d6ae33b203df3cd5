// A whole mailroom with its SMTP submission listener on an ephemeral loopback port, a sink that receives
// what it delivers, a loopback DNS server publishing the sending domain's DKIM key, and nodemailer clients.
import { fileURLToPath } from 'node:url';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { startSubmissionListener, type SubmissionListener } from '../../src/smtp-listeners/submission-listener.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { addConfirmedSender, addVerifiedDomain } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

export const CERT = fileURLToPath(new URL('../fixtures/tls/localhost.crt', import.meta.url));
export const KEY = fileURLToPath(new URL('../fixtures/tls/localhost.key', import.meta.url));
/** A From with a confirmed sender signature; DOMAIN is DKIM-verified, its key published in the loopback DNS. */
export const FROM = 'app@shop.example';
export const DOMAIN = 'shop.example';

export interface SubmissionRig {
  s: TestService;
  sink: SmtpSink;
  dns: TestDnsServer;
  listener: SubmissionListener;
  port: number;
  /** A nodemailer transport to the submission port, authenticated with `token` (default: the server token). */
  transport(o?: { token?: string | null; user?: string }): Transporter<SMTPTransport.SentMessageInfo>;
  close(): Promise<void>;
}

export async function startSubmissionRig(env: Record<string, string> = {}): Promise<SubmissionRig> {
  const sink = await startSmtpSink();
  const dns = await startDnsServer();
  const s = await startService({
    env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DNS_SERVERS: dns.address, MAILROOM_SUBMISSION_PORT: '0', MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
  });
  const key = await addVerifiedDomain(s, DOMAIN);
  dns.set(`${key.selector}._domainkey.${DOMAIN}`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${key.publicKeyBase64}` }]);
  await addConfirmedSender(s, FROM);
  const listener = await startSubmissionListener(s.ctx);
  const port = listener.port!;
  const transports: Array<{ close(): void }> = [];
  return {
    s,
    sink,
    dns,
    listener,
    port,
    transport(o = {}) {
      const token = o.token === undefined ? s.serverToken : o.token;
      const t = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        ignoreTLS: true,
        ...(token === null ? {} : { auth: { user: o.user ?? token, pass: token } }),
      });
      transports.push(t);
      return t;
    },
    async close() {
      for (const t of transports) t.close();
      await listener.stop();
      await s.close();
      await sink.close();
      await dns.close();
    },
  };
}

/** The SMTP error nodemailer reports: reply code and text. */
export function smtpError(err: unknown): { code: number; response: string } {
  const e = err as { responseCode?: number; response?: string; message?: string };
  return { code: e.responseCode ?? 0, response: e.response ?? e.message ?? '' };
}
