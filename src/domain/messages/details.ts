// GET /messages/{id}/details (the dump: message-checks/message-source.ts). A message of another server is "not found" like a missing one
// (isolation: the caller learns nothing about other servers' ids).
import type { AppContext } from '../app-context.js';
import { fromJson } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { iso } from '../../infra/time.js';
import { hostedMessageEvents, type StoredEvent } from './event-view.js';
import { ITEM_COLUMNS, messageItem, recipientsOf } from './view.js';

export function messageNotFound(id: string): ApiError {
  return new ApiError(ErrorCode.MessageNotFound, `No message found with ID '${id}'.`);
}

/** Ensures the message exists on this server; returns its stream. */
export async function requireMessage(ctx: AppContext, serverId: number, id: string): Promise<{ stream_id: string }> {
  const m = await ctx.db.selectFrom('messages').select('stream_id').where('id', '=', id).where('server_id', '=', serverId).executeTakeFirst();
  if (!m) throw messageNotFound(id);
  return m;
}

/** The message with its stored events, as recorded (the console's timeline shows them all). */
async function messageWithEvents(ctx: AppContext, serverId: number, id: string) {
  const m = await ctx.db
    .selectFrom('messages')
    .select([...ITEM_COLUMNS, 'html_body', 'text_body', 'mime'])
    .where('id', '=', id)
    .where('server_id', '=', serverId)
    .executeTakeFirst();
  if (!m) throw messageNotFound(id);
  const [recipients, rows] = await Promise.all([
    recipientsOf(ctx, [id]),
    ctx.db
      .selectFrom('message_events')
      .select(['type', 'recipient', 'occurred_at', 'details'])
      .where('message_id', '=', id)
      .where('server_id', '=', serverId)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute(),
  ]);
  const events: StoredEvent[] = rows.map((e) => ({ ...e, details: fromJson<Record<string, unknown>>(e.details, {}) }));
  const message = {
    ...messageItem(m, recipients.get(id) ?? []),
    HtmlBody: m.html_body ?? '',
    TextBody: m.text_body ?? '',
    // The source as sent (attachment content left out, docs/reference/api-conventions.md, "General rules" 6);
    // empty until it is composed.
    Body: m.mime ?? '',
  };
  return { message, events };
}

/** GET /messages/{id}/details: MessageEvents in the hosted service's form (event-view.ts). */
export async function messageDetails(ctx: AppContext, serverId: number, id: string) {
  const { message, events } = await messageWithEvents(ctx, serverId, id);
  return { ...message, MessageEvents: hostedMessageEvents(events) };
}

/** The console's message page: every stored event with its full Details (Processed, SpamComplaint, TLS). */
export async function messageTimeline(ctx: AppContext, serverId: number, id: string) {
  const { message, events } = await messageWithEvents(ctx, serverId, id);
  return {
    ...message,
    Timeline: events.map((e) => ({ Recipient: e.recipient, Type: e.type, ReceivedAt: iso(e.occurred_at), Details: e.details })),
  };
}
