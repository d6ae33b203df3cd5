// PUT /bounces/{id}/activate: reactivates the address of a bounce (docs/reference/bounces.md). The
// suppression its bounce created is removed in the bounce's stream and its inactive bounces there are marked
// active, in one transaction, with the SubscriptionChange event that tells webhooks the address may receive
// mail again. A spam complaint can never be undone (docs/reference/bounces.md, "Types and codes": 1003).
import type { AppContext } from '../app-context.js';
import { fromJson } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { recordEvent } from '../events/record.js';
import { subscriptionChanged } from '../events/subscription-changed.js';
import { getBounce } from './query.js';

export async function activateBounce(ctx: AppContext, serverId: number, id: number): Promise<{ Message: string; Bounce: Record<string, unknown> }> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const b = await trx
      .selectFrom('bounces')
      .select(['id', 'stream_id', 'email', 'type', 'can_activate', 'message_id'])
      .where('server_id', '=', serverId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!b) throw new ApiError(ErrorCode.BounceNotFound, `Bounce ${id} not found.`);
    if (b.type === 'SpamComplaint' || b.can_activate !== 1) {
      throw new ApiError(ErrorCode.BounceCannotActivate, `Bounce ${id} (${b.type}) cannot be activated.`);
    }
    const where = { server_id: serverId, stream_id: b.stream_id, email: b.email };
    const sup = await trx
      .selectFrom('suppressions')
      .select(['id', 'reason'])
      .where('server_id', '=', where.server_id)
      .where('stream_id', '=', where.stream_id)
      .where('email', '=', where.email)
      .executeTakeFirst();
    // A later spam complaint (or a manual suppression by the customer) keeps the address inactive.
    if (sup && sup.reason !== 'HardBounce') {
      throw new ApiError(ErrorCode.BounceCannotActivate, `${b.email} is suppressed for ${sup.reason} and cannot be activated.`);
    }
    await trx
      .updateTable('bounces')
      .set({ inactive: 0 })
      .where('server_id', '=', where.server_id)
      .where('stream_id', '=', where.stream_id)
      .where('email', '=', where.email)
      .where('type', '!=', 'SpamComplaint')
      .execute();
    if (!sup) return; // already active: activating again changes nothing
    await trx.deleteFrom('suppressions').where('id', '=', sup.id).execute();
    if (b.message_id) {
      const msg = await trx.selectFrom('messages').select(['tag', 'metadata']).where('id', '=', b.message_id).executeTakeFirst();
      if (msg) {
        const message = { id: b.message_id, serverId, streamId: b.stream_id, tag: msg.tag, metadata: fromJson<Record<string, string>>(msg.metadata, {}) };
        await recordEvent(trx, ctx, subscriptionChanged({ message, recipient: b.email, occurredAt: now, origin: 'Customer', suppressSending: false, reason: 'HardBounce' }));
      }
    }
  });
  const bounce = await getBounce(ctx, serverId, id);
  delete bounce.Content;
  return { Message: 'OK', Bounce: bounce };
}
