// The SubscriptionChanged event, the one builder: a recipient left a stream's audience (a hard bounce or
// complaint suppressed it, the recipient unsubscribed, RFC 8058) or came back (the customer activated a
// bounce). Its Details are the SubscriptionChange webhook's fields (docs: "Webhook payloads").
import type { MessageEventInput } from '../event-types.js';

export interface SubscriptionChange {
  message: { id: string; serverId: number; streamId: string; tag: string | null; metadata: Record<string, string> };
  recipient: string;
  occurredAt: number;
  /** Who changed it: the recipient (bounce, complaint, unsubscribe) or the customer (activation). */
  origin: 'Recipient' | 'Customer';
  /** True when sending to the recipient is now suppressed, false when it is allowed again. */
  suppressSending: boolean;
  reason: string;
}

export function subscriptionChanged(c: SubscriptionChange): MessageEventInput {
  return {
    messageId: c.message.id,
    serverId: c.message.serverId,
    streamId: c.message.streamId,
    type: 'SubscriptionChanged',
    recipient: c.recipient,
    occurredAt: c.occurredAt,
    details: { Origin: c.origin, SuppressSending: c.suppressSending, SuppressionReason: c.reason },
    tag: c.message.tag,
    metadata: c.message.metadata,
  };
}
