// Mailpit's release: a captured message sent on to real inboxes through the relay the operator configured
// (MAILROOM_RELEASE_RELAY_*), as Mailpit's MP_SMTP_RELAY_* do. The message is composed as delivery would
// compose it, with the attachment bytes a Sandbox message keeps, a new Date and Message-ID (a released copy
// is a new message to the receiving side, as Mailpit's is), and no Bcc (never composed). The envelope sender
// is the From address. One SMTP transaction per recipient (the client's send takes one RCPT).
import { randomUUID } from 'node:crypto';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { AppContext } from '../app-context.js';
import { composeMime } from '../delivery/compose.js';
import { composeInputOf } from '../delivery/compose-input.js';
import { parseSingleMailbox } from '../../infra/mime/address.js';
import { SmtpClient } from '../../infra/smtp-client/client.js';
import type { MailpitServer } from './filters.js';
import { recipientAddress, recipientAllowed } from './release-recipients.js';

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

/** The message as it is released: composed with its kept attachments, a fresh Date and Message-ID. */
async function releasedSource(ctx: AppContext, server: MailpitServer, id: string, now: number): Promise<{ from: string; raw: Buffer } | null> {
  let q = ctx.db.selectFrom('messages').selectAll().where('id', '=', id).where('server_id', '=', server.id);
  if (server.sandbox) q = q.where('sandbox', '=', 1);
  const row = await q.executeTakeFirst();
  if (!row) return null;
  const [recipients, files] = await Promise.all([
    ctx.db.selectFrom('message_recipients').select(['kind', 'email', 'name']).where('message_id', '=', id).orderBy('id').execute(),
    ctx.db.selectFrom('message_attachments').select(['name', 'content_type', 'content_id', 'content']).where('message_id', '=', id).orderBy('position').execute(),
  ]);
  const input = composeInputOf(
    ctx,
    row,
    recipients,
    files.map((f) => ({ name: f.name, contentType: f.content_type, contentId: f.content_id, content: f.content })),
  );
  input.date = new Date(now);
  input.messageIdHeader = `<${randomUUID()}@${ctx.config.returnPathDomain}>`;
  let from = row.from_email;
  try {
    from = parseSingleMailbox(row.from_raw).address || from;
  } catch {
    // The stored From was checked at accept time; from_email is its address.
  }
  return { from, raw: composeMime(input, true) };
}

/**
 * Sends message `id` of the server to `to` through the release relay. Returns false when the message is not
 * the server's; throws ReleaseError for a refusal (no relay, a recipient not allowed, the relay's refusal).
 */
export async function releaseMessage(ctx: AppContext, server: MailpitServer, id: string, to: readonly string[]): Promise<boolean> {
  const rcpts = releaseRecipients(ctx, to);
  const relay = ctx.config.releaseRelay!;
  const source = await releasedSource(ctx, server, id, ctx.clock.now());
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
      ...(relay.auth ? { auth: relay.auth } : {}),
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
