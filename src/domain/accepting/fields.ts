// Small field readers shared by the validation of a message: type checks with clear messages, null meaning
// "not given" (docs/reference/api-conventions.md, "Requests and responses").
import { ApiError, ErrorCode } from '../errors.js';
import { AddressError, parseAddressList, type Mailbox } from '../../infra/mime/address.js';

export const bad = (msg: string, status?: number) => new ApiError(ErrorCode.InvalidEmailRequest, msg, status);

/** A string field, or undefined when absent or null. */
export function optString(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(`The field '${key}' must be a string.`);
  return v;
}

export function optBoolean(o: Record<string, unknown>, key: string): boolean | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'boolean') throw bad(`The field '${key}' must be true or false.`);
  return v;
}

/** Length in UTF-16 code units, as the API counts (docs/reference/api-conventions.md, "Limits"). */
export function checkLength(key: string, value: string, max: number): void {
  if (value.length > max) throw bad(`The field '${key}' is longer than ${max} characters (${value.length}).`);
}

/** Control characters but TAB: what header-bound text may not hold. */
export const LINE_BREAK = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Header-bound text (Subject, Tag): CR/LF would inject header lines (RFC 5322 2.2). */
export function checkHeaderText(key: string, value: string): void {
  if (LINE_BREAK.test(value)) throw bad(`The field '${key}' contains CR, LF or other control characters.`);
}

export function addresses(key: string, value: string): Mailbox[] {
  try {
    return parseAddressList(value);
  } catch (err) {
    if (err instanceof AddressError) throw bad(`Invalid '${key}' address: ${err.message}.`);
    throw err;
  }
}
