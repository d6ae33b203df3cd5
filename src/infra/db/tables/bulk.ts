import type { WithDefault } from './defaults.js';

/** One POST /email/bulk request (src/domain/bulk), expanded into messages page by page. */
export interface BulkRequestsTable {
  id: string;
  server_id: number;
  stream_id: string;
  /** Storing (being written, seen by nobody: src/domain/bulk/store.ts) | Accepted | Processing | Completed | Failed */
  status: WithDefault<string>;
  /** Why a Failed request failed. */
  reason: WithDefault<string | null>;
  subject: string;
  /** JSON: the request-level fields the messages are compiled from (src/domain/bulk/content.ts). */
  content: string;
  /** JSON [{Name, ContentType, ContentID, ContentLength}] */
  attachments: WithDefault<string>;
  total_messages: number;
  pages: number;
  pages_done: WithDefault<number>;
  compiled: WithDefault<number>;
  skipped: WithDefault<number>;
  failed: WithDefault<number>;
  submitted_at: number;
  completed_at: WithDefault<number | null>;
}

/** A page of a bulk request's Messages entries: expanded in one transaction, then marked done. */
export interface BulkPagesTable {
  bulk_id: string;
  page: number;
  /** JSON array of the entries. */
  entries: string;
  done_at: WithDefault<number | null>;
}

/** A bulk request's attachments, stored once for all its messages. */
export interface BulkAttachmentsTable {
  bulk_id: string;
  position: number;
  name: string;
  content_type: string;
  content_id: string | null;
  /** Base64; null once the request's last message is handed off. */
  content: string | null;
  size: number;
}
