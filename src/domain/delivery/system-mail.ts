// Mail the service sends on its own behalf (sender-signature confirmations, ...). It goes out through the
// same transport as customer mail (the relay when MAILROOM_SMTP_RELAY is set, else the recipient's MX), From
// and envelope sender `mailroom@<MAILROOM_RETURN_PATH_DOMAIN>`, unsigned (the service holds no DKIM key for
// that domain). Throws when the message was not accepted, so the queue job that calls it retries.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { emailDomain, normalizeEmail } from '../../infra/mime/normalize.js';
import { classifyReply } from './classify.js';
import { composeSystemMime } from './system-compose.js';
import { deliverToDomain } from './transport.js';

/** The queue of system mail jobs (registered by sender-signatures/system-mail-queue.ts); here, beside the
 * sending, so that any area may queue system mail without importing the sender-signature area. */
export const SYSTEM_MAIL_QUEUE = 'system-mail';

export interface SystemMail {
  to: string;
  subject: string;
  text: string;
  html?: string | null;
}

export class SystemMailError extends Error {
  constructor(
    message: string,
    /** True when the receiving server refused for good (5xx): retrying will not help. */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export function systemFromAddress(ctx: AppContext): string {
  return `mailroom@${ctx.config.returnPathDomain}`;
}

export async function sendSystemMail(ctx: AppContext, mail: SystemMail): Promise<void> {
  const to = normalizeEmail(mail.to);
  if (!to) throw new SystemMailError(`not an address: ${JSON.stringify(mail.to)}`, true);
  const from = systemFromAddress(ctx);
  // Its own composer (system-compose.ts): the links it carries arrive unbroken, which the customer composer's
  // 78-character quoted-printable lines do not promise.
  const raw = composeSystemMime({
    messageIdHeader: `<${randomUUID()}@${ctx.config.returnPathDomain}>`,
    date: new Date(ctx.clock.now()),
    fromName: 'mailroom',
    from,
    to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    extraHeaders: [{ key: 'Auto-Submitted', value: 'auto-generated' }], // RFC 3834: no auto-replies to this
  });
  const [r] = await deliverToDomain(ctx, ctx.smtpPool, emailDomain(to), [{ from, to, raw }]);
  if (!r.ok) {
    // The classifier of delivery outcomes: 5xx is permanent, except 503 (our own protocol fault).
    const permanent = !r.network && classifyReply(r.reply).kind === 'permanent';
    throw new SystemMailError(`system mail to ${to} not accepted by ${r.server}: ${r.reply.text}`, permanent);
  }
}
