// The request-level fields of a bulk request, stored once (bulk_requests.content) and compiled into every
// message (compile.ts). Attachments are stored apart (bulk_attachments).
import type { PreparedAttachment } from '../accepting/types.js';

export interface BulkContent {
  From: string;
  Subject: string | null;
  HtmlBody: string | null;
  TextBody: string | null;
  TemplateId: number | null;
  TemplateAlias: string | null;
  InlineCss: boolean;
  ReplyTo: string | null;
  Tag: string | null;
  Headers: Array<{ Name: string; Value: string }>;
  Metadata: Record<string, string>;
  TrackOpens: boolean | null;
  TrackLinks: unknown;
  MessageStream: string;
}

/** One entry of Messages, as stored in its page (validated at acceptance). */
export interface BulkEntry {
  To: string;
  Cc?: string;
  Bcc?: string;
  TemplateModel?: Record<string, unknown>;
  Metadata?: Record<string, string>;
  Headers?: Array<{ Name: string; Value: string }>;
}

/** A validated request, ready to be stored. */
export interface PreparedBulk {
  content: BulkContent;
  entries: BulkEntry[];
  attachments: PreparedAttachment[];
  streamId: string;
  fromEmail: string;
  fromDomain: string;
}

type Header = { Name: string; Value: string };

/**
 * An entry's Headers merged over the request's: a request header whose name the entry also gives is replaced
 * by the entry's (names compared case-insensitively, RFC 5322 1.2.2), so a message never carries both values.
 */
export function mergeHeaders(request: Header[], entry: Header[] | undefined): Header[] {
  if (!entry || entry.length === 0) return request;
  const own = new Set(entry.map((h) => h.Name.toLowerCase()));
  return [...request.filter((h) => !own.has(h.Name.toLowerCase())), ...entry];
}
