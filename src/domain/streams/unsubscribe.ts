// A recipient's unsubscribe (the link of unsubscribe-headers.ts): the address is suppressed in the stream of
// the message with reason ManualSuppression, origin Recipient, and the message gets a SubscriptionChanged event
// (which notifies the SubscriptionChange webhooks), all in one transaction. Repeating it changes nothing.
import type { AppContext } from '../app-context.js';
import { fromJson } from '../../infra/db/util.js';
import { recordEvent } from '../events/record.js';
import { subscriptionChanged } from '../events/subscription-changed.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import type { UnsubscribeClaim } from './unsubscribe-token.js';

export type UnsubscribeOutcome = 'unsubscribed' | 'already' | 'gone';

export async function applyUnsubscribe(ctx: AppContext, c: UnsubscribeClaim): Promise<UnsubscribeOutcome> {
  const email = normalizeEmail(c.recipient);
  if (email === null) return 'gone';
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const stream = await trx.selectFrom('message_streams').select('id').where('server_id', '=', c.serverId).where('id', '=', c.streamId).executeTakeFirst();
    // The stream was purged: there is nothing left to send to the address from.
    if (!stream) return 'gone';
    const inserted = await trx
      .insertInto('suppressions')
      .values({ server_id: c.serverId, stream_id: c.streamId, email, reason: 'ManualSuppression', origin: 'Recipient', created_at: now })
      .onConflict((oc) => oc.columns(['server_id', 'stream_id', 'email']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return 'already';
    const msg = await trx
      .selectFrom('messages')
      .select(['id', 'tag', 'metadata'])
      .where('id', '=', c.messageId)
      .where('server_id', '=', c.serverId)
      .where('stream_id', '=', c.streamId)
      .executeTakeFirst();
    // Past the retention period the message is gone; the suppression still holds.
    if (msg) {
      const message = { id: msg.id, serverId: c.serverId, streamId: c.streamId, tag: msg.tag, metadata: fromJson<Record<string, string>>(msg.metadata, {}) };
      await recordEvent(trx, ctx, subscriptionChanged({ message, recipient: c.recipient, occurredAt: now, origin: 'Recipient', suppressSending: true, reason: 'ManualSuppression' }));
    }
    return 'unsubscribed';
  });
}
