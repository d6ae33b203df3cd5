// Everything about a bulk request that can be checked without the database: the request-level fields, the
// attachments, and every entry of Messages. One bad entry refuses the whole request with ErrorCode 300 naming
// it (Messages[i]): a 200 means every recipient will be compiled, and the application learns at once which
// entry to fix instead of finding a silently missing recipient later. Costs one pass over the entries, in
// turns of the event loop (turns.ts).
import { prepareAttachments } from '../accepting/attachments.js';
import { addresses, bad, checkHeaderText, checkLength, optBoolean, optString } from '../accepting/fields.js';
import { prepareHeaders } from '../accepting/headers.js';
import * as L from '../accepting/limits.js';
import { metadata, parseTrackLinks } from '../accepting/validate.js';
import { ApiError, ErrorCode } from '../errors.js';
import { mergeHeaders, type BulkContent, type BulkEntry, type PreparedBulk } from './content.js';
import type { Turns } from './turns.js';

/** A bulk request's recipient entries (the payload limit, 50 MB, bounds them first). */
export const MAX_BULK_MESSAGES = 1_000_000;

/** What an entry is merged over (compile.ts): the request's own Headers and Metadata. */
interface RequestLevel {
  headers: Array<{ Name: string; Value: string }>;
  metadata: Record<string, string>;
}

// The merged Headers and Metadata are checked against the limits of one message here, at acceptance: at
// expansion an entry over them could only be left out.
function prepareEntry(value: unknown, i: number, request: RequestLevel): BulkEntry {
  const where = `Messages[${i}]`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(`'${where}' must be an object with To.`);
  const o = value as Record<string, unknown>;
  const entry: BulkEntry = { To: '' };
  let count = 0;
  for (const kind of ['To', 'Cc', 'Bcc'] as const) {
    const v = optString(o, kind);
    if (v === undefined || v.trim() === '') continue;
    count += addresses(`${where}.${kind}`, v).length;
    entry[kind] = v;
  }
  if (!entry.To) throw bad(`The field '${where}.To' is required (at least one address).`);
  if (count > L.MAX_RECIPIENTS) throw bad(`Too many recipients in '${where}': ${count} (To, Cc and Bcc together hold at most ${L.MAX_RECIPIENTS}).`);
  const model = o.TemplateModel;
  if (model !== undefined && model !== null) {
    if (typeof model !== 'object' || Array.isArray(model)) throw bad(`The field '${where}.TemplateModel' must be an object.`);
    entry.TemplateModel = model as Record<string, unknown>;
  }
  if (o.Metadata !== undefined && o.Metadata !== null) {
    entry.Metadata = metadata(o.Metadata);
    const fields = Object.keys({ ...request.metadata, ...entry.Metadata }).length;
    if (fields > L.MAX_METADATA_FIELDS) throw bad(`'${where}.Metadata' and the request's Metadata together hold ${fields} fields; at most ${L.MAX_METADATA_FIELDS}.`);
  }
  if (o.Headers !== undefined && o.Headers !== null) {
    entry.Headers = prepareHeaders(o.Headers);
    const count = mergeHeaders(request.headers, entry.Headers).length;
    if (count > L.MAX_HEADERS) throw bad(`'${where}.Headers' and the request's Headers together hold ${count} headers; at most ${L.MAX_HEADERS}.`);
  }
  return entry;
}

function templateRef(o: Record<string, unknown>): { id: number | null; alias: string | null } {
  const id = o.TemplateId ?? null;
  const alias = o.TemplateAlias ?? null;
  if (id !== null && !(typeof id === 'number' && Number.isInteger(id) && id > 0)) {
    throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'TemplateId' must be a positive whole number.");
  }
  if (alias !== null && (typeof alias !== 'string' || alias.trim() === '')) throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'TemplateAlias' must be a string.");
  return { id: id as number | null, alias: alias as string | null };
}

export async function prepareBulkRequest(body: unknown, turns: Turns): Promise<PreparedBulk> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw bad('The request body must be a JSON object.');
  const o = body as Record<string, unknown>;
  const fromRaw = optString(o, 'From');
  if (fromRaw === undefined || fromRaw.trim() === '') throw bad("The field 'From' is required.");
  checkLength('From', fromRaw, L.MAX_FROM);
  const from = addresses('From', fromRaw);
  if (from.length !== 1) throw bad("The field 'From' must hold exactly one address.");

  const { id, alias } = templateRef(o);
  const subject = optString(o, 'Subject') ?? null;
  const htmlBody = optString(o, 'HtmlBody') || null;
  const textBody = optString(o, 'TextBody') || null;
  if (id !== null || alias !== null) {
    if (subject !== null || htmlBody || textBody) throw bad("Give either TemplateId/TemplateAlias or Subject/HtmlBody/TextBody, not both.");
  } else {
    if (!htmlBody && !textBody) throw bad("Provide either 'HtmlBody' or 'TextBody' (or both), or a TemplateId or TemplateAlias.");
    if (subject !== null) {
      checkLength('Subject', subject, L.MAX_SUBJECT);
      checkHeaderText('Subject', subject);
    }
    if (htmlBody && Buffer.byteLength(htmlBody) > L.MAX_BODY_BYTES) throw bad(`'HtmlBody' is larger than 5 MB (${L.MAX_BODY_BYTES} bytes).`);
    if (textBody && Buffer.byteLength(textBody) > L.MAX_BODY_BYTES) throw bad(`'TextBody' is larger than 5 MB (${L.MAX_BODY_BYTES} bytes).`);
  }
  const inline = o.InlineCss ?? true;
  if (typeof inline !== 'boolean') throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'InlineCss' must be true or false.");
  const tag = optString(o, 'Tag');
  if (tag !== undefined) {
    checkLength('Tag', tag, L.MAX_TAG);
    checkHeaderText('Tag', tag);
  }
  const replyTo = optString(o, 'ReplyTo');
  if (replyTo !== undefined && replyTo.trim() !== '') {
    checkLength('ReplyTo', replyTo, L.MAX_REPLY_TO);
    addresses('ReplyTo', replyTo);
  }
  parseTrackLinks(o.TrackLinks);
  const stream = o.MessageStream;
  // The Bulk API sends through a Broadcasts stream; the server's default one is 'broadcast'.
  let streamId = 'broadcast';
  if (typeof stream === 'string' && stream.trim() !== '') streamId = stream.trim().toLowerCase();
  else if (stream !== undefined && stream !== null && stream !== '') throw bad("The field 'MessageStream' must be a stream ID.");
  if (streamId.length > 100) throw new ApiError(ErrorCode.StreamNotOnServer, `The stream provided: '${streamId.slice(0, 100)}…' does not exist on this server.`);

  const list = o.Messages;
  if (!Array.isArray(list) || list.length === 0) throw bad("The field 'Messages' is required: an array of at least one {To, Cc, Bcc, TemplateModel, Metadata}.");
  if (list.length > MAX_BULK_MESSAGES) throw bad(`A bulk request holds at most ${MAX_BULK_MESSAGES} messages; this one has ${list.length}.`);
  const request: RequestLevel = { headers: prepareHeaders(o.Headers), metadata: metadata(o.Metadata) };
  const entries: BulkEntry[] = new Array<BulkEntry>(list.length);
  for (let i = 0; i < list.length; i++) {
    entries[i] = prepareEntry(list[i], i, request);
    if (turns.due()) await turns.take();
  }

  const content: BulkContent = {
    From: fromRaw,
    Subject: subject,
    HtmlBody: htmlBody,
    TextBody: textBody,
    TemplateId: id,
    TemplateAlias: alias,
    InlineCss: inline,
    ReplyTo: replyTo === undefined || replyTo.trim() === '' ? null : replyTo,
    Tag: tag === undefined || tag === '' ? null : tag,
    Headers: request.headers,
    Metadata: request.metadata,
    TrackOpens: optBoolean(o, 'TrackOpens'),
    TrackLinks: o.TrackLinks ?? null,
    MessageStream: streamId,
  };
  const key = from[0].ascii.slice(0, from[0].ascii.length - from[0].domain.length).toLowerCase() + from[0].domain;
  return { content, entries, attachments: prepareAttachments(o.Attachments), streamId, fromEmail: key, fromDomain: from[0].domain };
}
