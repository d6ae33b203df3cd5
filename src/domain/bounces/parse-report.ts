// Turns one received message (a bounce, a complaint, an auto-reply) into classified per-recipient results.
// Pure apart from parsing: no database, no clock. Recognizes, in this order:
//   - DSNs (RFC 3464; multipart/report with message/delivery-status, or message/global-delivery-status of
//     RFC 6533): one result per recipient block that failed or was delayed;
//   - feedback reports (ARF, RFC 5965; message/feedback-report): abuse and fraud reports are complaints;
//   - plain-text bounces of MTAs that send no DSN (qmail, old Exim, Yahoo): a rule table over the text;
//   - address-change notices, and list commands ("unsubscribe", "subscribe") from people (recipient-requests.ts);
//   - auto-replies (RFC 3834 Auto-Submitted, and the headers and subjects vacation responders use).
import PostalMime, { type Attachment, type Email } from '../../infra/mime/postal-mime.js';
import { classifyStatus } from './classify.js';
import { isAutoReply, isChallenge } from './auto-reply.js';
import type { RecipientResult } from './recipient-result.js';
import { analysePlainBounce, looksLikeBounce, returnedCopy } from './plain-bounce.js';
import { addressChange, listRequest } from './recipient-requests.js';
import { field, parseFieldBlocks, parseFields, typedAddress, typedValue } from './report-fields.js';
import { addressesIn } from './addresses-in.js';

export type ReportKind = 'dsn' | 'arf' | 'bounce' | 'autoreply' | 'request' | 'unknown';

export type { RecipientResult } from './recipient-result.js';

export interface OriginalMessage {
  messageId: string | null;
  returnPath: string | null;
  to: string[];
}

export interface ParsedReport {
  kind: ReportKind;
  results: RecipientResult[];
  /** What could be read of the message the report is about (attached message or its headers). */
  original: OriginalMessage;
  subject: string;
  /** ARF Feedback-Type, lowercased. */
  feedbackType?: string;
}

const DSN_TYPES = ['message/delivery-status', 'message/global-delivery-status'];
const ORIGINAL_TYPES = ['message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global', 'message/global-headers'];

function text(a: Attachment | undefined): string {
  if (!a) return '';
  if (typeof a.content === 'string') return a.content;
  return new TextDecoder().decode(a.content instanceof ArrayBuffer ? new Uint8Array(a.content) : a.content);
}

function header(email: Email, name: string): string | null {
  return email.headers.find((h) => h.key === name)?.value ?? null;
}

function readOriginal(email: Email): OriginalMessage {
  const att = email.attachments.find((a) => ORIGINAL_TYPES.includes(a.mimeType));
  const fields = parseFields(att ? text(att) : returnedCopy(email.text ?? ''));
  const to = (fields.get('to') ?? []).flatMap((v) => addressesIn(v));
  return {
    // Replies and Exchange/Gmail NDRs also name the original in In-Reply-To/References (RFC 5322 3.6.4).
    messageId: field(fields, 'message-id') ?? header(email, 'in-reply-to') ?? header(email, 'references'),
    returnPath: typedAddress(field(fields, 'return-path')),
    to,
  };
}

function parseDsn(body: string): RecipientResult[] {
  const blocks = parseFieldBlocks(body);
  const out: RecipientResult[] = [];
  for (const b of blocks) {
    const given = field(b, 'action')?.toLowerCase().split(/\s/)[0] ?? null;
    const final = typedAddress(field(b, 'final-recipient')) ?? typedAddress(field(b, 'original-recipient'));
    if (!given && !final) continue; // the per-message block
    const status = field(b, 'status')?.split(/\s/)[0] ?? null;
    // Action is required (RFC 3464 2.3.3); a sloppy MTA that leaves it out is read by its status class.
    const action = given ?? (status?.startsWith('5') ? 'failed' : status?.startsWith('4') ? 'delayed' : null);
    // Only failures and delays are bounces; successes and unknown actions are not.
    if (action !== 'failed' && action !== 'delayed') continue;
    const diagnostic = typedValue(field(b, 'diagnostic-code'));
    const remoteMta = typedValue(field(b, 'remote-mta'));
    const c = classifyStatus({ status: status ?? undefined, text: diagnostic ?? undefined, action });
    out.push({
      email: final,
      action,
      status,
      diagnostic,
      remoteMta,
      ...c,
      details: diagnostic ? `smtp;${diagnostic}` : `action: ${action}, status: ${status ?? 'unknown'}`,
    });
  }
  return out;
}

function parseArf(body: string, original: OriginalMessage): { results: RecipientResult[]; feedbackType: string } {
  const fields = parseFieldBlocks(body)[0];
  const feedbackType = (field(fields, 'feedback-type') ?? '').toLowerCase();
  // abuse and fraud are the recipient's complaint (RFC 5965 7.3); virus is a notification about content.
  // not-spam, auth-failure (RFC 6591) and other say nothing about the recipient's wishes: no result.
  const type = feedbackType === 'abuse' || feedbackType === 'fraud' ? 'SpamComplaint' : feedbackType === 'virus' ? 'VirusNotification' : null;
  if (!type) return { results: [], feedbackType };
  const rcpts = (fields?.get('original-rcpt-to') ?? []).map((v) => typedAddress(v)).filter((v): v is string => !!v);
  const emails = rcpts.length > 0 ? rcpts : original.to.length > 0 ? original.to : [null];
  const ua = field(fields, 'user-agent');
  const details = `Feedback-Type: ${feedbackType}${ua ? `, User-Agent: ${ua}` : ''}`;
  return {
    feedbackType,
    results: emails.map((email) => ({ email, action: null, status: null, diagnostic: null, remoteMta: null, type, permanent: true, details })),
  };
}

/**
 * Only the head of a large report is parsed: the human-readable part and the delivery-status or
 * feedback-report part come first (RFC 6522 3), and the returned original's header section follows them;
 * parsing a returned 10 MB attachment would cost seconds for nothing. The whole message stays the dump.
 */
export const PARSE_LIMIT_BYTES = 512 * 1024;

function head(raw: string | Uint8Array): string | Uint8Array {
  const len = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength;
  if (len <= PARSE_LIMIT_BYTES) return raw;
  const buf = (typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).subarray(0, PARSE_LIMIT_BYTES);
  const cut = buf.lastIndexOf('\n');
  return cut > 0 ? buf.subarray(0, cut + 1) : buf;
}

export async function parseReport(raw: string | Uint8Array): Promise<ParsedReport> {
  let email: Email;
  try {
    email = await PostalMime.parse(head(raw), { forceRfc822Attachments: true, attachmentEncoding: 'utf8', maxNestingDepth: 32 });
  } catch {
    return { kind: 'unknown', results: [], original: { messageId: null, returnPath: null, to: [] }, subject: '' };
  }
  const subject = email.subject ?? '';
  const original = readOriginal(email);

  const arf = email.attachments.find((a) => a.mimeType === 'message/feedback-report');
  if (arf) return { kind: 'arf', subject, original, ...parseArf(text(arf), original) };

  const dsn = email.attachments.find((a) => DSN_TYPES.includes(a.mimeType));
  if (dsn) {
    const results = parseDsn(text(dsn));
    // A report whose delivery-status part names nobody: fall back to the human-readable part.
    if (results.length > 0 || /\baction\s*:/i.test(text(dsn))) return { kind: 'dsn', subject, original, results };
  }

  const from = email.from && 'address' in email.from ? (email.from.address ?? '') : '';
  if (dsn || looksLikeBounce(from, subject)) {
    const r = analysePlainBounce(email.text ?? '', from);
    if (r) return { kind: 'bounce', subject, original, results: [r] };
  }

  const reply = (type: string, details: string, kind: ReportKind = 'autoreply'): ParsedReport => ({
    kind,
    subject,
    original,
    results: [{ email: from || null, action: null, status: null, diagnostic: null, remoteMta: null, type, permanent: false, details: details.slice(0, 1000) }],
  });
  const ours = [from, ...(email.to ?? []).flatMap((a) => ('address' in a && a.address ? [a.address] : [])), ...original.to];
  const moved = addressChange(email, ours);
  if (moved) return reply('AddressChange', moved.newAddress ? `Address change notice; new address: ${moved.newAddress}` : subject.slice(0, 200) || 'Address change notice');
  const request = listRequest(email);
  if (request) return reply(request.request, `${request.request} request: ${request.said.slice(0, 200)}`, 'request');
  if (isChallenge(email)) return reply('ChallengeVerification', subject.slice(0, 200) || 'Sender verification requested');
  if (isAutoReply(email)) return reply('AutoResponder', subject.slice(0, 200) || 'Automatic reply');
  return { kind: 'unknown', subject, original, results: [] };
}

/** The message id (UUID) named by a Message-ID header we generated, wherever it sits in the header. */
export function messageIdFromHeader(value: string | null): string | null {
  if (!value) return null;
  const m = /([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})/i.exec(value);
  return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`.toLowerCase() : null;
}
