import type { WithDefault } from './defaults.js';
import type { Generated } from 'kysely';

/** One accepted outgoing message. Bodies and the as-sent MIME are kept for the retention period. */
export interface MessagesTable {
  id: string;
  server_id: number;
  stream_id: string;
  from_email: string;
  /** From exactly as given (may carry a display name). */
  from_raw: string;
  subject: string;
  tag: string | null;
  html_body: string | null;
  text_body: string | null;
  reply_to: string | null;
  /** JSON [{Name, Value}] */
  headers: string;
  /** JSON {key: value} */
  metadata: string;
  track_opens: number;
  /** None | HtmlAndText | HtmlOnly | TextOnly */
  track_links: string;
  /** JSON [{Name, ContentType, ContentID, ContentLength}]: what remains after the content is dropped. */
  attachments: string;
  /** Queued | Sent | Bounced | Failed */
  status: string;
  /** 1 when the message is recorded but never delivered (Sandbox server). */
  sandbox: WithDefault<number>;
  received_at: number;
  /** The MIME source as sent, attachment content left out (GET /messages/{id}/dump). */
  mime: string | null;
  /** The bulk request (src/domain/bulk) the message was compiled from; its attachments are stored there. */
  bulk_id: WithDefault<string | null>;
  /** Mailpit's Size (domain/mailpit/size.ts), computed the first time a list shows the message; null before. */
  size: WithDefault<number | null>;
}

export interface MessageRecipientsTable {
  id: Generated<number>;
  message_id: string;
  server_id: number;
  stream_id: string;
  kind: 'To' | 'Cc' | 'Bcc';
  /** Normalized address: the domain lowercased (IDN as A-label), the local part as given. */
  email: string;
  name: string;
  /** Queued | Sent | Transient | Bounced */
  status: string;
  received_at: number;
  settled_at: number | null;
}

export interface MessageAttachmentsTable {
  message_id: string;
  position: number;
  name: string;
  content_type: string;
  content_id: string | null;
  /**
   * Base64 content; set to null once every recipient is settled (docs/reference/api-conventions.md, "General
   * rules" 6).
   */
  content: string | null;
  size: number;
}

export interface MessageEventsTable {
  id: Generated<number>;
  message_id: string;
  server_id: number;
  stream_id: string;
  /** Processed | Delivered | Transient | Bounced | Opened | LinkClicked | SubscriptionChanged | SpamComplaint */
  type: string;
  recipient: string;
  occurred_at: number;
  /** JSON object */
  details: string;
}
