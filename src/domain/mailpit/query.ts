// Mailpit's search syntax (its internal/tools/argsparser.go and internal/storage/search.go), parsed into
// terms that filters.ts turns into SQL. Words are separated by spaces outside double quotes and the quotes
// are dropped ("quoted phrases" keep their spaces); a word starting with - or ! is negated; a known prefix
// (to:, from:, cc:, bcc:, reply-to:, addressed:, subject:, message-id:, tag:, after:, before:) or flag
// (is:read, is:unread, is:tagged, has:attachment, has:inline) selects a field; anything else is free text.
// Every step is one pass over the characters: the query is a stranger's text (the 1 MB case in
// test/robustness/linear-inputs.test.ts).
import { zonedMidnightOrInstant } from './dates.js';

export type FieldName = 'to' | 'from' | 'cc' | 'bcc' | 'reply-to' | 'addressed' | 'subject' | 'message-id' | 'tag' | 'text';
export type FlagName = 'read' | 'unread' | 'tagged' | 'attachment' | 'inline';

export type Term =
  | { kind: 'field'; field: FieldName; value: string; exclude: boolean }
  | { kind: 'flag'; flag: FlagName; exclude: boolean }
  | { kind: 'date'; bound: 'after' | 'before'; at: number; exclude: boolean };

/** More terms than this is not a search a test suite writes; refused before any SQL is built. */
export const MAX_TERMS = 32;
/** A longer word is refused: a LIKE pattern of megabytes would be read against every message. */
export const MAX_TERM_LENGTH = 1000;

export class QueryError extends Error {}

/** Words as Mailpit's ArgsParser splits them: spaces outside quotes separate, quotes are removed. */
export function splitWords(s: string): string[] {
  const out: string[] = [];
  let word = '';
  let quoted = false;
  const push = () => {
    const v = word.trim();
    if (v !== '') out.push(v);
    word = '';
  };
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ' ') push();
    else word += ch;
    if (out.length > MAX_TERMS) throw new QueryError(`The search has more than ${MAX_TERMS} terms.`);
  }
  push();
  if (out.length > MAX_TERMS) throw new QueryError(`The search has more than ${MAX_TERMS} terms.`);
  return out;
}

const SEPARATORS = new Set(['\r', '\n', '\t', '>', '<', '"', ',', ';', '(', ')', '\uFEFF']);

/** Mailpit's cleanString: line breaks, tabs and <>",;() become spaces, runs of spaces one, trimmed, lowercase. */
export function cleanValue(s: string): string {
  let out = '';
  let space = false;
  for (const ch of s) {
    if (SEPARATORS.has(ch) || ch === ' ') {
      space = out !== '';
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  return out.toLowerCase();
}

const FIELDS: Array<[string, FieldName]> = [
  ['to:', 'to'],
  ['from:', 'from'],
  ['cc:', 'cc'],
  ['bcc:', 'bcc'],
  ['reply-to:', 'reply-to'],
  ['addressed:', 'addressed'],
  ['subject:', 'subject'],
  ['message-id:', 'message-id'],
  ['tag:', 'tag'],
];
const FLAGS: Record<string, FlagName> = {
  'is:read': 'read',
  'is:unread': 'unread',
  'is:tagged': 'tagged',
  'has:attachment': 'attachment',
  'has:attachments': 'attachment',
  'has:inline': 'inline',
  'has:inlines': 'inline',
};

/** Parses a search; `tz` (an IANA zone, Mailpit's `tz` parameter) places dates without an offset. */
export function parseQuery(search: string, tz?: string): Term[] {
  const terms: Term[] = [];
  for (let w of splitWords(search)) {
    if (w.length > MAX_TERM_LENGTH) throw new QueryError(`A search term is longer than ${MAX_TERM_LENGTH} characters.`);
    if (cleanValue(w) === '') continue;
    let exclude = false;
    if (w.length > 1 && (w[0] === '-' || w[0] === '!')) {
      exclude = true;
      w = w.slice(1);
    }
    const lw = w.toLowerCase();
    const flag = FLAGS[lw];
    if (flag) {
      terms.push({ kind: 'flag', flag, exclude });
      continue;
    }
    if (lw.startsWith('after:') || lw.startsWith('before:')) {
      const bound = lw.startsWith('after:') ? 'after' : 'before';
      const at = zonedMidnightOrInstant(cleanValue(w.slice(bound.length + 1)).toUpperCase(), tz);
      // Mailpit ignores a date it cannot read (and logs it); so does this.
      if (at !== null) terms.push({ kind: 'date', bound, at, exclude });
      continue;
    }
    const field = FIELDS.find(([p]) => lw.startsWith(p));
    if (field) {
      // subject: keeps its text as written (Mailpit does not clean it); the others are cleaned.
      const raw = w.slice(field[0].length);
      const value = field[1] === 'subject' ? raw : cleanValue(raw);
      if (value !== '') terms.push({ kind: 'field', field: field[1], value, exclude });
      continue;
    }
    terms.push({ kind: 'field', field: 'text', value: cleanValue(w), exclude });
  }
  return terms;
}
