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

export function registerTextFunctions(db: SQLite.Database): void {
  db.function(FOLDED_CONTAINS, { deterministic: true }, (text: unknown, term: unknown) => {
    if (typeof text !== 'string' || typeof term !== 'string') return 0;
    return fold(text).includes(fold(term)) ? 1 : 0;
  });
}
