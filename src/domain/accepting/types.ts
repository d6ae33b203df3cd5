// The shapes of the sending area: a message as the application sent it, the validated form that is
// stored, and the per-message result of the send operations (docs/reference/sending.md, "Send result").
import type { AttachmentChecksums } from './checksums.js';

export type TrackLinks = 'None' | 'HtmlAndText' | 'HtmlOnly' | 'TextOnly';

export interface PreparedRecipient {
  kind: 'To' | 'Cc' | 'Bcc';
  /** Stored form: local part as given, domain as lowercase A-label. */
  email: string;
  name: string;
  /** normalizeEmail() form, compared with suppressions. */
  key: string;
  /** The address as the application wrote it (for messages naming it). */
  given: string;
}

export interface PreparedAttachment {
  name: string;
  contentType: string;
  /** Without the `cid:` prefix and angle brackets; null for a regular attachment. */
  contentId: string | null;
  /** Base64 without whitespace. */
  content: string;
  /** Decoded size in bytes. */
  size: number;
  /** Of the decoded content (checksums.ts); absent where the content is not at hand (a bulk entry). */
  checksums?: AttachmentChecksums;
}

/** A message that passed every check that needs no database. */
export interface PreparedMessage {
  fromRaw: string;
  /** normalizeEmail() form of the From address (signature lookup, search). */
  fromEmail: string;
  fromDomain: string;
  /** The To field as given: the send result echoes it. */
  toRaw: string;
  recipients: PreparedRecipient[];
  subject: string;
  tag: string | null;
  htmlBody: string | null;
  textBody: string | null;
  replyTo: string | null;
  headers: Array<{ Name: string; Value: string }>;
  metadata: Record<string, string>;
  /** null: the server's default. */
  trackOpens: boolean | null;
  trackLinks: TrackLinks | null;
  attachments: PreparedAttachment[];
  streamId: string;
}

export interface SendSuccess {
  To: string;
  SubmittedAt: string;
  MessageID: string;
  ErrorCode: 0;
  Message: string;
}

export interface SendFailure {
  ErrorCode: number;
  Message: string;
}

export type SendResult = SendSuccess | SendFailure;

/** One message's outcome: the batch item, and the HTTP status a single send answers with. */
export interface SendOutcome {
  result: SendResult;
  status: number;
}
