// The rules of message streams (docs/reference/streams.md and docs/reference/error-codes.md, codes 1221-1237),
// in one place so that the API, the purge task and sending read the same numbers.
import { ApiError, ErrorCode } from '../errors.js';

export const MAX_STREAMS_PER_SERVER = 10;
export const MAX_INBOUND_STREAMS = 1;
export const MAX_STREAM_ID = 30;
export const MAX_STREAM_NAME = 100;
export const MAX_STREAM_DESCRIPTION = 1000;
/** An archived stream can be restored for 45 days, then it is purged with its messages. */
export const PURGE_AFTER_MS = 45 * 24 * 60 * 60 * 1000;

export const STREAM_TYPES = ['Transactional', 'Broadcasts', 'Inbound'] as const;
export type StreamType = (typeof STREAM_TYPES)[number];

export const UNSUBSCRIBE_HANDLING = ['None', 'Postmark', 'Custom'] as const;
export type UnsubscribeHandling = (typeof UNSUBSCRIBE_HANDLING)[number];

// Starts with a letter; lowercase letters, digits, '-' and '_' (code 1227).
const ID_FORMAT = /^[a-z][a-z0-9_-]*$/;
// A tag, a comment, a doctype or a character reference: Description is plain text (code 1234).
const HTML = /<[A-Za-z/!?]|&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/i;

/** The canonical spelling of a stream type given in any case, or null. */
export function parseStreamType(value: unknown): StreamType | null {
  if (typeof value !== 'string') return null;
  return STREAM_TYPES.find((t) => t.toLowerCase() === value.trim().toLowerCase()) ?? null;
}

/** Checks an ID chosen by the client; returns it unchanged. */
export function checkStreamId(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ApiError(ErrorCode.StreamIdRequired, 'A valid stream ID is required.');
  const id = value.trim();
  if (id === 'all') throw new ApiError(ErrorCode.StreamIdReserved, "The stream ID 'all' is reserved.");
  if (id.startsWith('pm-')) throw new ApiError(ErrorCode.StreamReservedPrefix, "Stream IDs starting with 'pm-' are reserved.");
  if (id.length > MAX_STREAM_ID || !ID_FORMAT.test(id)) {
    throw new ApiError(
      ErrorCode.StreamIdFormat,
      `The stream ID must start with a letter and hold only lowercase letters, digits, '-' and '_' (at most ${MAX_STREAM_ID} characters).`,
    );
  }
  return id;
}

/**
 * An ID made from a Name when the client gives none: "My Newsletter!" -> "my-newsletter". Accents are
 * dropped, other characters become '-', and the result obeys the same rules as a chosen ID. Collisions are
 * the caller's to resolve (see withSuffix).
 */
export function deriveStreamId(name: string): string {
  let id = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, MAX_STREAM_ID)
    .replace(/[-_]+$/, '');
  if (id === '') id = 'stream';
  if (id === 'all' || id.startsWith('pm-')) id = `stream-${id}`.slice(0, MAX_STREAM_ID).replace(/[-_]+$/, '');
  return id;
}

/** `base` with a numeric suffix that keeps it within the length limit: my-stream-2, my-stream-3, ... */
export function withSuffix(base: string, n: number): string {
  const suffix = `-${n}`;
  return base.slice(0, MAX_STREAM_ID - suffix.length).replace(/[-_]+$/, '') + suffix;
}

export function checkStreamName(value: unknown): string {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new ApiError(ErrorCode.StreamNameRequired, 'The stream Name is required.');
  }
  if (typeof value !== 'string') throw new ApiError(ErrorCode.StreamNameRequired, 'The stream Name must be a string.');
  const name = value.trim();
  if (name.length > MAX_STREAM_NAME) throw new ApiError(ErrorCode.StreamNameTooLong, `The stream Name must be at most ${MAX_STREAM_NAME} characters.`);
  return name;
}

/** A Description, or null when none is given (an empty text clears it). */
export function checkStreamDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ApiError(ErrorCode.InvalidRequestFields, 'The stream Description must be a string.');
  if (value.length > MAX_STREAM_DESCRIPTION) {
    throw new ApiError(ErrorCode.StreamDescriptionTooLong, `The stream Description must be at most ${MAX_STREAM_DESCRIPTION} characters.`);
  }
  if (HTML.test(value)) throw new ApiError(ErrorCode.StreamDescriptionHtml, 'The stream Description cannot contain HTML.');
  return value.trim() === '' ? null : value;
}

/** The unsubscribe handling a stream uses when none was set: the hosted service's defaults. */
export function defaultUnsubscribeHandling(type: string): UnsubscribeHandling {
  return type === 'Broadcasts' ? 'Postmark' : 'None';
}

/** Checks SubscriptionManagementConfiguration.UnsubscribeHandlingType against the stream's type. */
export function checkUnsubscribeHandling(config: unknown, type: string): UnsubscribeHandling | undefined {
  if (config === undefined || config === null) return undefined;
  const value = typeof config === 'object' ? (config as Record<string, unknown>).UnsubscribeHandlingType : undefined;
  if (value === undefined || value === null) return undefined;
  const handling = UNSUBSCRIBE_HANDLING.find((h) => typeof value === 'string' && h.toLowerCase() === value.toLowerCase());
  if (!handling) throw new ApiError(ErrorCode.InvalidRequestFields, `UnsubscribeHandlingType must be one of ${UNSUBSCRIBE_HANDLING.join(', ')}.`);
  // Broadcasts must offer an unsubscribe (ours or the sender's own); other streams carry none.
  if (type === 'Broadcasts' ? handling === 'None' : handling !== 'None') {
    throw new ApiError(ErrorCode.InvalidRequestFields, `UnsubscribeHandlingType ${handling} is not allowed on a ${type} stream.`);
  }
  return handling;
}
