// A stored message as the composer's input: delivery composes it to send (with attachment content), the
// Mailpit API's raw source and the message checks compose it as it would be sent (content is not kept).
import type { AppContext } from '../app-context.js';
import { fromJson } from '../../infra/db/util.js';
import type { ComposeAttachment, ComposeInput } from './compose.js';

/**
 * The Message-ID header mailroom writes for a message: its MessageID at the envelope (Return-Path) domain it
 * is sent from, the sender's verified custom Return-Path domain when there is one (a domain of the sender's
 * own, beside From), else the service's return-path domain.
 */
export function messageIdHeader(ctx: Pick<AppContext, 'config'>, messageId: string, envelopeDomain = ctx.config.returnPathDomain): string {
  return `<${messageId}@${envelopeDomain}>`;
}

/** The columns of a `messages` row the composer reads. */
export interface StoredMessageFields {
  id: string;
  received_at: number;
  from_raw: string;
  reply_to: string | null;
  subject: string;
  html_body: string | null;
  text_body: string | null;
  headers: string;
}

export function composeInputOf(
  ctx: Pick<AppContext, 'config'>,
  m: StoredMessageFields,
  recipients: ReadonlyArray<{ kind: string; email: string; name: string }>,
  attachments: ComposeAttachment[],
  /** The envelope domain delivery sends from (the Message-ID's domain); absent: the service's. */
  envelopeDomain?: string,
): ComposeInput {
  const people = (kind: string) => recipients.filter((r) => r.kind === kind);
  return {
    messageIdHeader: messageIdHeader(ctx, m.id, envelopeDomain),
    date: new Date(m.received_at),
    fromRaw: m.from_raw,
    replyTo: m.reply_to,
    subject: m.subject,
    to: people('To'),
    cc: people('Cc'),
    html: m.html_body,
    text: m.text_body,
    headers: fromJson<Array<{ Name: string; Value: string }>>(m.headers, []),
    attachments,
  };
}
