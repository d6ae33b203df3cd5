// A large JSON body parsed off the event loop, and rebuilt on it in bounded steps.
//
// JSON.parse of a 50 MB body holds the event loop for the whole parse (about a second on an idle machine,
// several with four at once). Parsing on a worker thread alone does not help: the parsed value must come
// back, and the structured clone of half a million small objects costs the receiving thread more than the
// parse did; even 50 MB of strings in one message is one long copy on arrival. So the worker (json-thread.ts)
// parses, checks the strings, and cuts the value into pieces: JSON texts of at most about PIECE_CHARS each
// (runs of array items, runs of an object's fields) and long strings, all as UTF-8 in one shared buffer that
// reaches the main thread without a copy, with a small outline saying where each piece goes. The main thread
// rebuilds the value one piece at a time (decode, JSON.parse; a long string decoded in steps and joined),
// yielding to the event loop between pieces: it holds the loop for one piece at a time, and does in all
// about the work the single JSON.parse did.
//
// The value rebuilt equals the one JSON.parse gives: the same keys in the same order (a repeated key keeps
// its first place and its last value, as JSON.parse does) and own data properties even for `__proto__`.
import { taskModule, type ThreadPool } from './threads/pool.js';

/** About the JSON text the event loop parses at once (a few milliseconds). */
export const PIECE_CHARS = 256 * 1024;

/** Bytes [at, at + len) of the pieces' buffer. */
export interface Span {
  at: number;
  len: number;
}

export type Piece =
  /** A whole value as JSON text. */
  | ({ t: 'v' } & Span)
  /** A string longer than a piece, its characters as UTF-8 (nothing to parse). */
  | ({ t: 's' } & Span)
  | { t: 'a'; parts: ArrayPart[] }
  | { t: 'o'; parts: ObjectPart[] };
/** Array items: a run of them as a JSON array text, or one large item. */
export type ArrayPart = ({ t: 'items' } & Span) | { t: 'item'; piece: Piece };
/** Object fields: a run of them as a JSON object text, or one large field. */
export type ObjectPart = ({ t: 'fields' } & Span) | { t: 'field'; key: string; piece: Piece };

/** Why a body was refused: not JSON, a NUL or unpaired surrogate in a string, nested past MAX_DEPTH. */
export type JsonRefusal = 'invalid' | 'hostile' | 'deep';

/** `piece` null: the body is empty (white space only). `bytes`: the pieces' texts. */
export type ThreadedParse = { piece: Piece | null; bytes: SharedArrayBuffer } | { refused: JsonRefusal };

export const MAX_DEPTH = 64;

// Matches a NUL or a surrogate that is not part of a pair.
const HOSTILE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Cheap first test: strings without a NUL or any surrogate (nearly all) skip the precise one.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

const hostile = (s: string): boolean => SUSPECT.test(s) && HOSTILE.test(s);

/**
 * The strings of a parsed body that cannot be stored faithfully (NUL, unpaired UTF-16 surrogates), and
 * nesting past MAX_DEPTH: null when none. Keys are checked as values are.
 */
export function refusalOf(value: unknown, depth = 0): JsonRefusal | null {
  if (depth > MAX_DEPTH) return 'deep';
  if (typeof value === 'string') return hostile(value) ? 'hostile' : null;
  if (Array.isArray(value)) {
    for (const v of value) {
      const r = refusalOf(v, depth + 1);
      if (r) return r;
    }
  } else if (value !== null && typeof value === 'object') {
    // for...in: JSON.parse makes plain objects with own enumerable keys only, and this avoids an entries array.
    const o = value as Record<string, unknown>;
    for (const k in o) {
      if (hostile(k)) return 'hostile';
      const r = refusalOf(o[k], depth + 1);
      if (r) return r;
    }
  }
  return null;
}

const define = (o: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Rebuilds the value of a piece from its buffer, about PIECE_CHARS of work between turns of the event loop. */
export async function rebuild(piece: Piece, bytes: Buffer): Promise<unknown> {
  let done = 0;
  const step = async (len: number) => {
    if (done >= PIECE_CHARS) {
      done = 0;
      await turn();
    }
    done += len;
  };
  const parse = async (s: Span): Promise<unknown> => {
    await step(s.len);
    return JSON.parse(bytes.toString('utf8', s.at, s.at + s.len)) as unknown;
  };
  // Joined strings are ropes: each step costs its own part only.
  const text = async (s: Span): Promise<string> => {
    const decoder = new TextDecoder();
    let out = '';
    for (let at = s.at, end = s.at + s.len; at < end; at += PIECE_CHARS) {
      await step(PIECE_CHARS);
      out += decoder.decode(bytes.subarray(at, Math.min(end, at + PIECE_CHARS)), { stream: true });
    }
    return out + decoder.decode();
  };
  const build = async (p: Piece): Promise<unknown> => {
    switch (p.t) {
      case 'v':
        return parse(p);
      case 's':
        return text(p);
      case 'a': {
        const out: unknown[] = [];
        for (const part of p.parts) {
          if (part.t === 'item') out.push(await build(part.piece));
          else for (const v of (await parse(part)) as unknown[]) out.push(v);
        }
        return out;
      }
      case 'o': {
        const out: Record<string, unknown> = {};
        for (const part of p.parts) {
          if (part.t === 'field') define(out, part.key, await build(part.piece));
          else {
            const fields = (await parse(part)) as Record<string, unknown>;
            for (const k in fields) define(out, k, fields[k]);
          }
        }
        return out;
      }
    }
  };
  return build(piece);
}

const MODULE = taskModule(import.meta.url, 'json-thread');

/** Parses `body` (UTF-8 JSON) on a thread of the pool and rebuilds it here in steps (rebuild). */
export async function parseOnThread(threads: Pick<ThreadPool, 'run'>, body: Buffer): Promise<{ value: unknown } | { refused: JsonRefusal }> {
  // A Buffer of this size owns its memory (not Node's shared pool): moved to the worker, not copied.
  const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  const input = owned ? body.buffer : body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
  const r = await threads.run<ThreadedParse>(MODULE, 'parsePieces', input, [input as ArrayBuffer], { alone: true });
  if ('refused' in r) return r;
  return { value: r.piece === null ? undefined : await rebuild(r.piece, Buffer.from(r.bytes)) };
}
