// The worker's half of a large JSON body (json-thread-pieces.ts): decode, parse, check the strings, and cut
// the value into pieces of about PIECE_CHARS of JSON text for the main thread to rebuild in steps.
//
// The texts go into one SharedArrayBuffer: the worker host posts its answer without a transfer list, and
// shared memory crosses without a copy.
//
// One pass: sizes are computed bottom-up (a child's JSON length before its parent's), and each value small
// enough for a piece is stringified once, at the topmost container that cuts it into a run. A container
// larger than a piece is an outline of its runs and large children; its nesting is bounded by MAX_DEPTH,
// which refusalOf checked first.
import { PIECE_CHARS, refusalOf, type ArrayPart, type ObjectPart, type Piece, type Span, type ThreadedParse } from './json-thread-pieces.js';

interface Planned {
  /** The value's JSON length (escapes of strings counted). */
  size: number;
  /** Set when the value is larger than a piece: how it is cut. */
  piece: Piece | null;
}

/** The pieces' texts as UTF-8, laid end to end. */
class Texts {
  private parts: Buffer[] = [];
  private bytes = 0;
  add(text: string): Span {
    const b = Buffer.from(text, 'utf8');
    this.parts.push(b);
    const span = { at: this.bytes, len: b.length };
    this.bytes += b.length;
    return span;
  }
  shared(): SharedArrayBuffer {
    const out = new SharedArrayBuffer(this.bytes);
    const view = Buffer.from(out);
    let at = 0;
    for (const p of this.parts) at += p.copy(view, at);
    this.parts = [];
    return out;
  }
}

/** Runs of small values joined into JSON texts of about PIECE_CHARS each. */
class Runs {
  private texts: string[] = [];
  private chars = 0;
  constructor(private readonly open: string, private readonly close: string) {}
  add(text: string, flush: (text: string) => void): void {
    if (this.chars + text.length > PIECE_CHARS && this.texts.length) this.flush(flush);
    this.texts.push(text);
    this.chars += text.length + 1;
  }
  flush(to: (text: string) => void): void {
    if (!this.texts.length) return;
    to(this.open + this.texts.join(',') + this.close);
    this.texts = [];
    this.chars = 0;
  }
}

function plan(value: unknown, texts: Texts): Planned {
  if (typeof value === 'string') {
    const size = JSON.stringify(value).length;
    return { size, piece: size > PIECE_CHARS ? { t: 's', ...texts.add(value) } : null };
  }
  if (Array.isArray(value)) {
    const kids = value.map((v) => plan(v, texts));
    const size = kids.reduce((n, k) => n + k.size + 1, 2);
    if (size <= PIECE_CHARS) return { size, piece: null };
    const parts: ArrayPart[] = [];
    const runs = new Runs('[', ']');
    const flush = (text: string) => parts.push({ t: 'items', ...texts.add(text) });
    kids.forEach((k, i) => {
      if (k.piece) {
        runs.flush(flush);
        parts.push({ t: 'item', piece: k.piece });
      } else runs.add(JSON.stringify(value[i]), flush);
    });
    runs.flush(flush);
    return { size, piece: { t: 'a', parts } };
  }
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o);
    const kids = keys.map((k) => plan(o[k], texts));
    const size = kids.reduce((n, k, i) => n + JSON.stringify(keys[i]).length + k.size + 2, 2);
    if (size <= PIECE_CHARS) return { size, piece: null };
    const parts: ObjectPart[] = [];
    const runs = new Runs('{', '}');
    const flush = (text: string) => parts.push({ t: 'fields', ...texts.add(text) });
    kids.forEach((k, i) => {
      const key = keys[i]!;
      if (k.piece) {
        runs.flush(flush);
        parts.push({ t: 'field', key, piece: k.piece });
      } else runs.add(`${JSON.stringify(key)}:${JSON.stringify(o[key])}`, flush);
    });
    runs.flush(flush);
    return { size, piece: { t: 'o', parts } };
  }
  // Numbers, booleans, null.
  return { size: JSON.stringify(value).length, piece: null };
}

/** The task: `input` is the body's UTF-8 bytes, decoded as the string body parser would decode them. */
export function parsePieces(input: ArrayBuffer): ThreadedParse {
  const text = Buffer.from(input).toString('utf8').trim();
  if (text === '') return { piece: null, bytes: new SharedArrayBuffer(0) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refused: 'invalid' };
  }
  const refused = refusalOf(value);
  if (refused) return { refused };
  const texts = new Texts();
  const p = plan(value, texts);
  const piece = p.piece ?? { t: 'v', ...texts.add(JSON.stringify(value)) };
  return { piece, bytes: texts.shared() };
}
