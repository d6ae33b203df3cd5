// Mail the service sends on its own behalf (sender-signature confirmations, ...). It goes out through the
// same transport as customer mail (the relay when MAILROOM_SMTP_RELAY is set, else the recipient's MX), From
// and envelope sender `mailroom@<MAILROOM_RETURN_PATH_DOMAIN>`, unsigned (the service holds no DKIM key for
// that domain). Throws when the message was not accepted, so the queue job that calls it retries.
import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { AppContext } from '../../context.js';
import { emailDomain, normalizeEmail } from '../../infra/mime/normalize.js';
import { deliverToDomain } from './transport.js';

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
  const raw = await new MailComposer({
    from: { name: 'mailroom', address: from },
    to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? undefined,
    messageId: `<${randomUUID()}@${ctx.config.returnPathDomain}>`,
    date: new Date(ctx.clock.now()),
    headers: { 'Auto-Submitted': 'auto-generated' }, // RFC 3834: no auto-replies to this
  })
    .compile()
    .build();
  const [r] = await deliverToDomain(ctx, ctx.smtpPool, emailDomain(to), [{ from, to, raw }]);
  if (!r.ok) {
    const permanent = !r.network && /^5/.test(r.reply) && !/^503/.test(r.reply);
    throw new SystemMailError(`system mail to ${to} not accepted by ${r.server}: ${r.reply}`, permanent);
  }
}
