// Raw SELECTs for hot paths, written once for both dialects: `?` placeholders (numbered `$n` for PostgreSQL).
// Kysely's builder compiles a query anew on every call, which costs more than SQLite needs to answer a small
// indexed lookup; the SQL text is stable, so better-sqlite3's statement cache (database.ts) reuses the
// prepared statement. Identifiers are our own constants; every value is a bound parameter.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Dialect } from './dialect-tag.js';
import type { Database } from './schema.js';

/** `?, ?, ?` for an IN list of n values (n >= 1). */
export const placeholders = (n: number): string => (n === 1 ? '?' : `?${', ?'.repeat(n - 1)}`);

export async function selectRaw<R>(db: Kysely<Database>, dialect: Dialect, text: string, params: unknown[]): Promise<R[]> {
  let i = 0;
  const q = dialect === 'postgres' ? text.replace(/\?/g, () => `$${++i}`) : text;
  return (await db.executeQuery<R>(CompiledQuery.raw(q, params))).rows;
}
