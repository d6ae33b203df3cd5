// A recipient's status as delivery and bounces settle it. Each statement names the recipients by id and
// their messages' ids (`messageIds`), so that PostgreSQL prunes the day partitions of message_recipients
// (migration 0023); the caller owns the transaction and cuts the ids into statements of a bounded size.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

/** Handed off: Sent, settled now. */
export async function settleRecipientsSent(trx: Kysely<Database>, ids: number[], messageIds: string[], now: number): Promise<void> {
  await trx.updateTable('message_recipients').set({ status: 'Sent', settled_at: now }).where('id', 'in', ids).where('message_id', 'in', messageIds).execute();
}

/** A fake bounce's recipient (delivery/fake-bounce.ts): Sent, unless a bounce settled it first. */
export async function settleUnsettledRecipientsSent(trx: Kysely<Database>, ids: number[], messageIds: string[], now: number): Promise<void> {
  await trx.updateTable('message_recipients').set({ status: 'Sent', settled_at: now }).where('id', 'in', ids).where('message_id', 'in', messageIds).where('settled_at', 'is', null).execute();
}

/** Deferred: Transient, still unsettled (its job retries). */
export async function markRecipientsTransient(trx: Kysely<Database>, ids: number[], messageIds: string[]): Promise<void> {
  await trx.updateTable('message_recipients').set({ status: 'Transient' }).where('id', 'in', ids).where('message_id', 'in', messageIds).execute();
}

/** A report that the message did not reach the mailbox: the recipient (by id, else every recipient of
 * the message at that address) settled as Bounced. */
export async function settleRecipientBounced(
  trx: Kysely<Database>,
  messageId: string,
  recipient: { id?: number | null; email: string },
  bouncedAt: number,
): Promise<void> {
  let recipients = trx.updateTable('message_recipients').set({ status: 'Bounced', settled_at: bouncedAt }).where('message_id', '=', messageId);
  recipients = recipient.id ? recipients.where('id', '=', recipient.id) : recipients.where('email', '=', recipient.email);
  await recipients.execute();
}
