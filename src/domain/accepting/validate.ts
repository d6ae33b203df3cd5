// Everything about one outgoing message that can be checked without the database (docs/reference/sending.md,
// "Outgoing message"; docs/reference/api-conventions.md, "Limits"). Throws ApiError with ErrorCode 300 (411 for
// a forbidden attachment); the size rule answers HTTP 413 on a single send.
import { ApiError, ErrorCode } from '../errors.js';
import type { Mailbox } from '../../infra/mime/address.js';
import { prepareAttachments } from './attachments.js';
import { addresses, bad, checkHeaderText, checkLength, optBoolean, optString } from './fields.js';
import { prepareHeaders } from './headers.js';
import * as L from './limits.js';
import { applyTemplateModel } from './template-model.js';
import type { PreparedMessage, PreparedRecipient, TrackLinks } from './types.js';

const TRACK_LINKS: Record<string, TrackLinks> = { none: 'None', htmlandtext: 'HtmlAndText', htmlonly: 'HtmlOnly', textonly: 'TextOnly' };

export function parseTrackLinks(value: unknown): TrackLinks | null {
  // "" is "not given" (the Ruby gem and the PHP client send it for an unset choice), as for Tag or ReplyTo.
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'boolean') return value ? 'HtmlAndText' : 'None';
  // Object.hasOwn: a plain object also "has" __proto__, constructor, toString...
  if (typeof value === 'string' && Object.hasOwn(TRACK_LINKS, value.toLowerCase())) return TRACK_LINKS[value.toLowerCase()]!;
  throw bad("The field 'TrackLinks' must be one of None, HtmlAndText, HtmlOnly, TextOnly (or true/false).");
}

export function metadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw bad("The field 'Metadata' must be an object of string values.");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > L.MAX_METADATA_FIELDS) throw bad(`'Metadata' holds at most ${L.MAX_METADATA_FIELDS} fields.`);
  for (const [k, v] of entries) {
    if (k.trim() === '' || k.length > L.MAX_METADATA_KEY) throw bad(`Metadata field names are 1 to ${L.MAX_METADATA_KEY} characters ('${k.slice(0, 40)}').`);
    if (typeof v !== 'string') throw bad(`Metadata '${k}' must be a string.`);
    if (v.length > L.MAX_METADATA_VALUE) throw bad(`Metadata '${k}' is longer than ${L.MAX_METADATA_VALUE} characters.`);
  }
  // fromEntries defines own properties: a key such as "__proto__" stays data instead of becoming a prototype.
  return Object.fromEntries(entries) as Record<string, string>;
}

/** normalizeEmail() of a parsed mailbox: its domain is already the lowercase A-label that normalizeEmail would
 * compute again (a second IDNA conversion per address was ~2% of a batch), so only the local part is lowered. */
const keyOf = (m: Mailbox): string => `${m.ascii.slice(0, m.ascii.length - m.domain.length).toLowerCase()}${m.domain}`;

function recipients(kind: PreparedRecipient['kind'], value: string | undefined): PreparedRecipient[] {
  if (value === undefined) return [];
  return addresses(kind, value).map((m) => ({ kind, email: m.ascii, name: m.name, key: keyOf(m), given: m.address }));
}

const bytes = (s: string | null | undefined) => (s ? Buffer.byteLength(s) : 0);

export interface PrepareOptions {
  /** TemplateModel is accepted by the single send only (docs/reference/sending.md, "Outgoing message"). */
  allowTemplateModel: boolean;
}

export function prepareMessage(input: unknown, opts: PrepareOptions): PreparedMessage {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw bad('A message must be a JSON object.');
  const o = input as Record<string, unknown>;

  const fromRaw = optString(o, 'From');
  if (fromRaw === undefined || fromRaw.trim() === '') throw bad("The field 'From' is required.");
  checkLength('From', fromRaw, L.MAX_FROM);
  const from = addresses('From', fromRaw);
  if (from.length !== 1) throw bad("The field 'From' must hold exactly one address.");

  const toRaw = optString(o, 'To');
  const list = [...recipients('To', toRaw), ...recipients('Cc', optString(o, 'Cc')), ...recipients('Bcc', optString(o, 'Bcc'))];
  if (!list.some((r) => r.kind === 'To')) throw bad("The field 'To' is required (at least one address).");
  if (list.length > L.MAX_RECIPIENTS) throw bad(`Too many recipients: ${list.length} (To, Cc and Bcc together hold at most ${L.MAX_RECIPIENTS}).`);

  let subject = optString(o, 'Subject') ?? '';
  let htmlBody = optString(o, 'HtmlBody') ?? null;
  let textBody = optString(o, 'TextBody') ?? null;
  const model = o.TemplateModel;
  if (model !== undefined && model !== null) {
    if (!opts.allowTemplateModel) throw bad("'TemplateModel' is not accepted here; use /email/batchWithTemplates.");
    ({ subject, htmlBody, textBody } = applyTemplateModel(model, { subject, htmlBody, textBody }));
  }
  checkLength('Subject', subject, L.MAX_SUBJECT);
  checkHeaderText('Subject', subject);
  if (!htmlBody && !textBody) throw bad("Provide either 'HtmlBody' or 'TextBody' (or both).");
  if (bytes(htmlBody) > L.MAX_BODY_BYTES) throw bad(`'HtmlBody' is larger than 5 MB (${L.MAX_BODY_BYTES} bytes).`);
  if (bytes(textBody) > L.MAX_BODY_BYTES) throw bad(`'TextBody' is larger than 5 MB (${L.MAX_BODY_BYTES} bytes).`);

  const tag = optString(o, 'Tag');
  if (tag !== undefined) {
    checkLength('Tag', tag, L.MAX_TAG);
    checkHeaderText('Tag', tag);
  }
  const replyTo = optString(o, 'ReplyTo');
  if (replyTo !== undefined) {
    checkLength('ReplyTo', replyTo, L.MAX_REPLY_TO);
    addresses('ReplyTo', replyTo);
  }
  const headers = prepareHeaders(o.Headers);
  const meta = metadata(o.Metadata);
  const attachments = prepareAttachments(o.Attachments);
  const stream = o.MessageStream;
  let streamId = 'outbound';
  if (typeof stream === 'string' && stream.trim() !== '') streamId = stream.trim().toLowerCase();
  else if (typeof stream === 'number' && Number.isInteger(stream)) streamId = String(stream);
  else if (stream !== undefined && stream !== null && stream !== '') throw bad("The field 'MessageStream' must be a stream ID.");
  if (streamId.length > 100) throw new ApiError(ErrorCode.StreamNotOnServer, `The stream provided: '${streamId.slice(0, 100)}…' does not exist on this server.`);

  // The whole message after base64 (docs/reference/api-conventions.md, "Limits"): every text field as UTF-8
  // plus the base64 content of the attachments. Over 10 MB: HTTP 413 with ErrorCode 300.
  let size = bytes(fromRaw) + bytes(toRaw) + bytes(optString(o, 'Cc')) + bytes(optString(o, 'Bcc')) + bytes(replyTo);
  size += bytes(subject) + bytes(tag) + bytes(htmlBody) + bytes(textBody);
  for (const h of headers) size += bytes(h.Name) + bytes(h.Value);
  for (const [k, v] of Object.entries(meta)) size += bytes(k) + bytes(v);
  for (const a of attachments) size += a.content.length + bytes(a.name);
  if (size > L.MAX_MESSAGE_BYTES) throw bad(`The message is larger than 10 MB after base64 (${size} bytes; the limit is ${L.MAX_MESSAGE_BYTES}).`, 413);

  return {
    fromRaw,
    fromEmail: keyOf(from[0]),
    fromDomain: from[0].domain,
    toRaw: toRaw!,
    recipients: list,
    subject,
    tag: tag === undefined || tag === '' ? null : tag,
    htmlBody: htmlBody || null,
    textBody: textBody || null,
    replyTo: replyTo === undefined || replyTo.trim() === '' ? null : replyTo,
    headers,
    metadata: meta,
    trackOpens: optBoolean(o, 'TrackOpens'),
    trackLinks: parseTrackLinks(o.TrackLinks),
    attachments,
    streamId,
  };
}
