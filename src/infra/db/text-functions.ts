// The SQL function that checks a substring case-insensitively with Unicode case folding on SQLite, whose own
// LIKE folds ASCII letters only: the rows a trigram index offers as candidates (text-index.ts) are checked by
// it, so that the match is the one the index's folding gives (FTS5 folds every letter), row by row.
import type SQLite from 'better-sqlite3';

export const FOLDED_CONTAINS = 'mailroom_folded_contains';

/**
 * Folded as FTS5 folds, one code point at a time: lowercase, and the final sigma as any sigma (JavaScript's
 * lowercasing of a whole string makes a word-final Σ into ς, FTS5 into σ).
 */
export function fold(s: string): string {
  return s.toLowerCase().replace(/ς/g, 'σ');
}

/**
 * The function itself, self-contained (fold's one line, written out twice) because the reader threads
 * (sqlite-reader-thread.ts) register it from its source text: searches run there as well as here. No inner
 * function either: a transpiler may wrap those in helpers the thread does not have.
 */
export function foldedContains(text: unknown, term: unknown): number {
  if (typeof text !== 'string' || typeof term !== 'string') return 0;
  return text.toLowerCase().replace(/ς/g, 'σ').includes(term.toLowerCase().replace(/ς/g, 'σ')) ? 1 : 0;
}

/** The deterministic SQL functions every SQLite connection that runs searches needs, as name and source. */
export const TEXT_FUNCTIONS: readonly { name: string; source: string }[] = [{ name: FOLDED_CONTAINS, source: foldedContains.toString() }];

export function registerTextFunctions(db: SQLite.Database): void {
  db.function(FOLDED_CONTAINS, { deterministic: true }, foldedContains);
}
