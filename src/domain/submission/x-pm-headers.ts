// The hosted service's SMTP options, as headers of the submitted message (README, "SMTP submission"). Each
// maps to the API field of the same meaning and is then validated by the API's own rules (validate.ts); none
// of them is delivered (from-mime.ts drops every X-PM-* header).
import type { Header } from 'postal-mime';
import { ApiError, ErrorCode } from '../errors.js';

const bad = (msg: string) => new ApiError(ErrorCode.InvalidEmailRequest, msg);

export interface PmOptions {
  /** API fields: MessageStream, Tag, Metadata, TrackOpens, TrackLinks. */
  fields: Record<string, unknown>;
  /** X-PM-KeepID: true keeps the client's Message-ID. */
  keepId: boolean;
}

function flag(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw bad(`The header '${name}' must be true or false (got '${value.slice(0, 40)}').`);
}

const METADATA_PREFIX = 'x-pm-metadata-';

export function readPmHeaders(headers: Header[]): PmOptions {
  const fields: Record<string, unknown> = {};
  let metadata: Record<string, string> | null = null;
  let keepId = false;
  for (const h of headers) {
    const name = h.originalKey || h.key;
    const value = h.value.trim();
    switch (h.key) {
      case 'x-pm-message-stream':
        fields.MessageStream = value;
        break;
      case 'x-pm-tag':
        fields.Tag = value;
        break;
      case 'x-pm-trackopens':
        fields.TrackOpens = flag(name, value);
        break;
      case 'x-pm-tracklinks':
        // The API's values (None, HtmlAndText, HtmlOnly, TextOnly); validate.ts checks them.
        fields.TrackLinks = value;
        break;
      case 'x-pm-keepid':
        keepId = flag(name, value);
        break;
      default:
        if (h.key.startsWith(METADATA_PREFIX)) {
          // The key keeps the case the client wrote, as Metadata keys do in the API.
          metadata ??= {};
          metadata[name.slice(METADATA_PREFIX.length)] = value;
        }
    }
  }
  if (metadata) fields.Metadata = metadata;
  return { fields, keepId };
}
