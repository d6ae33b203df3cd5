// What becomes of a message once no recipient is left unsettled (delivery/outcome.ts, finishIfSettled):
// status Sent, and a Live message's attachment content dropped (docs/reference/api-conventions.md,
// "General rules" 6). The caller owns the transaction and chooses the ids.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

/** Queued messages among `ids` become Sent (a Sandbox one is Sent from the start). */
export async function markMessagesSent(trx: Kysely<Database>, ids: string[]): Promise<void> {
  await trx.updateTable('messages').set({ status: 'Sent' }).where('id', 'in', ids).where('status', '=', 'Queued').execute();
}

/** The content of these messages' attachments is dropped; names, types and sizes stay. */
export async function dropAttachmentContent(trx: Kysely<Database>, messageIds: string[]): Promise<void> {
  await trx.updateTable('message_attachments').set({ content: null }).where('message_id', 'in', messageIds).where('content', 'is not', null).execute();
}
