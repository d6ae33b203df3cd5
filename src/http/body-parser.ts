// JSON bodies: an empty body is "no body" (archive/unarchive are sent with Content-Length: 0), broken JSON is
// 422/402, and strings that cannot be stored faithfully (NUL, unpaired UTF-16 surrogates) are refused up
// front so that no handler has to think about them and no database rejects them with a 500.
import { ApiError, ErrorCode } from '../domain/errors.js';
import type { App } from './types.js';

// Matches a NUL or a surrogate that is not part of a pair.
const HOSTILE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Cheap first test: strings without a NUL or any surrogate (nearly all) skip the precise one.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

function checkString(s: string): void {
  if (SUSPECT.test(s) && HOSTILE.test(s)) throw new ApiError(ErrorCode.InvalidJson, 'The JSON body contains a NUL character or an unpaired UTF-16 surrogate.');
}

function checkStrings(value: unknown, depth = 0): void {
  if (depth > 64) throw new ApiError(ErrorCode.InvalidJson, 'The JSON body is nested too deeply.');
  if (typeof value === 'string') checkString(value);
  else if (Array.isArray(value)) {
    for (const v of value) checkStrings(v, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    // for...in: JSON.parse makes plain objects with own enumerable keys only, and this avoids an entries array.
    const o = value as Record<string, unknown>;
    for (const k in o) {
      checkString(k);
      checkStrings(o[k], depth + 1);
    }
  }
}

export function registerJsonParser(app: App): void {
  // Only JSON is spoken: any other Content-Type with a body is 415 (ErrorCode 409).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new ApiError(ErrorCode.InvalidJson, 'The request body is not valid JSON.'), undefined);
    }
    try {
      checkStrings(parsed);
    } catch (err) {
      return done(err as Error, undefined);
    }
    done(null, parsed);
  });
}
