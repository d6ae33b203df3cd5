// Mailpit's release: a captured message sent on to real inboxes through the relay the operator configured
// (MAILROOM_RELEASE_RELAY_*), as Mailpit's MP_SMTP_RELAY_* do. The message is composed (eml.ts) with a new
// Date and Message-ID: a released copy is a new message to the receiving side, as Mailpit's is. The envelope
// sender is the From address. One SMTP transaction per recipient (the client's send takes one RCPT).
import { createSecureContext, rootCertificates } from 'node:tls';
import type { AppContext } from '../app-context.js';
import { SmtpClient } from '../../infra/smtp-client/client.js';
import type { MailpitServer } from './filters.js';
import { recipientAddress, recipientAllowed } from './release-recipients.js';
import { emlOf } from './eml.js';

/** A refused release: the text is Mailpit's answer (400, plain text). */
export class ReleaseError extends Error {}

/** Recipients of one release: enough for a team's inboxes, bounded so that a request stays short. */
export const MAX_RELEASE_RECIPIENTS = 50;

export const RELEASE_DISABLED = 'Release is not enabled: set MAILROOM_RELEASE_RELAY_HOST (and the other MAILROOM_RELEASE_RELAY_* settings) to send captured messages on through an SMTP relay.';

/** The checked envelope recipients of a release of `to`, or a ReleaseError saying which are refused. */
export function releaseRecipients(ctx: Pick<AppContext, 'config'>, to: readonly string[]): string[] {
  const relay = ctx.config.releaseRelay;
  if (!relay) throw new ReleaseError(RELEASE_DISABLED);
  if (to.length === 0) throw new ReleaseError('No valid addresses found');
  if (to.length > MAX_RELEASE_RECIPIENTS) throw new ReleaseError(`Failed: at most ${MAX_RELEASE_RECIPIENTS} addresses per release`);
  const out: string[] = [];
  const notAllowed: string[] = [];
  for (const t of to) {
    const a = recipientAddress(t);
    if (!a) throw new ReleaseError(`Invalid email address: ${t}`);
    if (!recipientAllowed(relay.allowedRecipients, a)) notAllowed.push(t);
    else if (!out.includes(a)) out.push(a);
  }
  if (notAllowed.length > 0) {
    throw new ReleaseError(`Failed: ${notAllowed.length === 1 ? 'Address does' : 'Addresses do'} not match the allowed recipients (MAILROOM_RELEASE_RELAY_ALLOWED_RECIPIENTS): ${notAllowed.join(', ')}`);
  }
  return out;
}

/**
 * Sends message `id` of the server to `to` through the release relay. Returns false when the message is not
 * the server's; throws ReleaseError for a refusal (no relay, a recipient not allowed, the relay's refusal).
 */
export async function releaseMessage(ctx: AppContext, server: MailpitServer, id: string, to: readonly string[]): Promise<boolean> {
  const rcpts = releaseRecipients(ctx, to);
  const relay = ctx.config.releaseRelay!;
  const source = await emlOf(ctx, server, id, { fresh: ctx.clock.now() });
  if (!source) return false;
  let client: SmtpClient | null = null;
  try {
    client = await SmtpClient.connect({
      host: relay.host,
      port: relay.port,
      secure: relay.tls === 'tls',
      name: ctx.config.ehloName ?? ctx.config.returnPathDomain,
      // `none`: a relay on a private network; STARTTLS is still used when offered, its certificate unchecked.
      tls: {
        servername: relay.host,
        rejectUnauthorized: relay.tls !== 'none',
        ...(ctx.config.tlsCa ? { secureContext: createSecureContext({ ca: [...rootCertificates, ctx.config.tlsCa.pem] }) } : {}),
      },
      opportunisticTls: relay.tls === 'none',
      requireTls: relay.tls === 'starttls',
      ...(relay.user !== null && relay.pass !== null ? { auth: { user: relay.user, pass: relay.pass } } : {}),
      connectTimeoutMs: 10_000,
      socketTimeoutMs: 30_000,
    });
    for (const rcpt of rcpts) await client.send(source.from, rcpt, source.raw);
    client.quit();
    return true;
  } catch (err) {
    client?.close();
    throw new ReleaseError(`SMTP error: ${(err as Error).message}`);
  }
}
