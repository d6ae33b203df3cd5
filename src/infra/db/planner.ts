// How the two databases' query executors differ where the choice of a query's shape depends on it.
import type { Dialect } from './database.js';

/**
 * Whether an index scan reads the table row of every index entry it passes, the rows skipped by OFFSET
 * included. PostgreSQL: yes (an Index Scan fetches the heap tuple before OFFSET discards it), so a deep
 * page is better cut as ids by an index-only scan first, then only those rows fetched. SQLite: no (it
 * skips offset rows in the index, and a second lookup by its text primary key would cost more).
 */
export function readsRowsSkippedByOffset(dialect: Dialect): boolean {
  return dialect === 'postgres';
}
