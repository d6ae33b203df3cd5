// The vocabulary of a message's events, declared below the areas that share it: events/record.ts writes an
// event and hands it to webhooks/ (fan-out) and stats/ (counters), which read the same types, so the types
// stand under all three rather than inside events/ (docs/architecture.md, "Layers").
/** Event types of a message's history (docs/reference/messages.md, "Message events"). */
export type MessageEventType =
  | 'Processed'
  | 'Delivered'
  | 'Transient'
  | 'Bounced'
  | 'SpamComplaint'
  | 'Opened'
  | 'LinkClicked'
  | 'SubscriptionChanged';

export interface MessageEventInput {
  messageId: string;
  serverId: number;
  streamId: string;
  type: MessageEventType;
  recipient: string;
  occurredAt: number;
  /** Stored as the event's Details (JSON). For Bounced/SpamComplaint it carries BounceID. */
  details: Record<string, unknown>;
  /** Not stored with the event; handed to the webhook and statistics hooks so they need no lookup. */
  tag?: string | null;
  metadata?: Record<string, string>;
  /** Processed only: the message's tracking flags, for the Tracked/WithOpenTracking/WithLinkTracking
   * statistics (looked up from the message when absent). */
  tracking?: { opens: boolean; links: boolean; trackedLinks?: number };
}

export interface RecordedEvent extends MessageEventInput {
  id: number;
}
