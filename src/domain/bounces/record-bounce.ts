// Records a bounce or spam complaint and everything that follows from it, in the caller's transaction:
// the bounce record, the message's Bounced (or SpamComplaint) event with its webhook notification and
// statistics, the recipient's status, and for inactive types the suppression in the message's stream.
// Used by the delivery worker (5xx answers, give-ups) and the inbound DSN/ARF intake alike.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { recordEvent } from '../events/record.js';
import { subscriptionChanged } from '../events/subscription-changed.js';
import { fromJson } from '../../infra/db/util.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { settleRecipientBounced } from '../message-store/settle-recipients.js';
import { bounceType } from './types.js';

export interface NewBounce {
  messageId: string;
  /** Normalized recipient address. */
  email: string;
  type: string;
  /** Short text shown as Details (the SMTP reply, DSN diagnostic, ...). */
  details: string;
  bouncedAt: number;
  /** The raw DSN/ARF message, when one was received. */
  dump?: string | null;
  /** Recipient row to mark Bounced (VERP gives it; otherwise found by address). */
  recipientId?: number | null;
}

export interface RecordedBounce {
  bounceId: number;
  inactive: boolean;
}

/** Types that report the message did not reach the mailbox (the recipient is settled as Bounced). */
const UNDELIVERED = new Set(['HardBounce', 'SoftBounce', 'DnsError', 'Blocked', 'DMARCPolicy', 'BadEmailAddress', 'SpamNotification', 'VirusNotification', 'Unknown', 'ManuallyDeactivated']);

export function isUndelivered(type: string): boolean {
  return UNDELIVERED.has(type);
}

export async function recordBounce(trx: Kysely<Database>, ctx: AppContext, b: NewBounce): Promise<RecordedBounce | null> {
  const msg = await trx
    .selectFrom('messages')
    .select(['id', 'server_id', 'stream_id', 'from_email', 'tag', 'subject', 'metadata'])
    .where('id', '=', b.messageId)
    .executeTakeFirst();
  if (!msg) return null;
  const info = bounceType(b.type);
  // Suppressions are compared in normalizeEmail() form (the local part lowercased); recipients are stored
  // as given, so the recipient row is still found by b.email.
  const email = normalizeEmail(b.email) ?? b.email.toLowerCase();
  const isComplaint = info.type === 'SpamComplaint';
  const inserted = await trx
    .insertInto('bounces')
    .values({
      server_id: msg.server_id,
      stream_id: msg.stream_id,
      message_id: msg.id,
      type: info.type,
      type_code: info.code,
      name: info.name,
      email,
      from_email: msg.from_email,
      tag: msg.tag,
      subject: msg.subject,
      description: info.description,
      details: b.details.slice(0, 4000),
      bounced_at: b.bouncedAt,
      inactive: info.inactive ? 1 : 0,
      can_activate: info.inactive && !isComplaint ? 1 : 0,
      dump: b.dump ?? null,
      content: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

  // Only a report that the message did not reach the mailbox settles the recipient as Bounced; a delay, an
  // auto-reply or a complaint (which proves delivery) leaves its status alone.
  if (isUndelivered(info.type)) {
    await settleRecipientBounced(trx, msg.id, { id: b.recipientId, email: b.email }, b.bouncedAt);
  }

  const meta = fromJson<Record<string, string>>(msg.metadata, {});
  let suppressedNow = false;
  let reason = '';
  if (info.inactive) {
    reason = isComplaint ? 'SpamComplaint' : 'HardBounce';
    const existing = await trx
      .selectFrom('suppressions')
      .select('reason')
      .where('server_id', '=', msg.server_id)
      .where('stream_id', '=', msg.stream_id)
      .where('email', '=', email)
      .executeTakeFirst();
    suppressedNow = !existing || (isComplaint && existing.reason !== 'SpamComplaint');
    await trx
      .insertInto('suppressions')
      .values({
        server_id: msg.server_id,
        stream_id: msg.stream_id,
        email,
        reason: isComplaint ? 'SpamComplaint' : 'HardBounce',
        origin: 'Recipient',
        created_at: b.bouncedAt,
      })
      .onConflict((oc) =>
        // A complaint outranks an earlier hard bounce: it can never be deleted.
        isComplaint ? oc.columns(['server_id', 'stream_id', 'email']).doUpdateSet({ reason: 'SpamComplaint', origin: 'Recipient' }) : oc.doNothing(),
      )
      .execute();
  }

  await recordEvent(trx, ctx, {
    messageId: msg.id,
    serverId: msg.server_id,
    streamId: msg.stream_id,
    type: isComplaint ? 'SpamComplaint' : 'Bounced',
    recipient: b.email,
    occurredAt: b.bouncedAt,
    details: { BounceID: inserted.id, Summary: info.description, Type: info.type, Details: b.details.slice(0, 1000) },
    tag: msg.tag,
    metadata: meta,
  });
  if (suppressedNow) {
    // The address left the stream's audience: the SubscriptionChange notification (docs/reference/webhooks.md,
    // "Payloads") follows from the same transaction.
    const message = { id: msg.id, serverId: msg.server_id, streamId: msg.stream_id, tag: msg.tag, metadata: meta };
    await recordEvent(trx, ctx, subscriptionChanged({ message, recipient: email, occurredAt: b.bouncedAt, origin: 'Recipient', suppressSending: true, reason }));
  }
  return { bounceId: inserted.id, inactive: info.inactive };
}
