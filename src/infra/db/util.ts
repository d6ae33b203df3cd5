// Everything that differs between SQLite and PostgreSQL, in one place. Code elsewhere stays dialect-free
// by calling these helpers.
import { PostgresAdapter, sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './dialect-tag.js';

/** True when the error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  if (!e || typeof e.code !== 'string') return false;
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Booleans are stored as 0/1 integers on both dialects. */
export const toFlag = (b: boolean | undefined | null): number => (b ? 1 : 0);
export const fromFlag = (n: number | null | undefined): boolean => n === 1 || (n as unknown) === true;

/** Case-insensitive substring match (`value` is escaped; % and _ in it match literally). */
export function containsInsensitive(dialect: Dialect, column: Expression<any>, value: string): RawBuilder<SqlBool> {
  const pattern = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return dialect === 'postgres'
    ? sql<SqlBool>`${column} ILIKE ${pattern} ESCAPE '\\'`
    : sql<SqlBool>`${column} LIKE ${pattern} ESCAPE '\\'`;
}

/** JSON text helpers: JSON is stored as text on both dialects. */
export function toJson(v: unknown): string {
  return JSON.stringify(v ?? null);
}
export function fromJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * Tag equality that uses the tag indexes on both dialects. PostgreSQL indexes tags of up to 2000 bytes
 * plainly and longer ones by md5(tag) (a 1000-character tag can exceed a b-tree entry; migration 0010):
 * the predicate names the partial index's condition literally so the planner can use it.
 */
export function tagEquals(dialect: Dialect, column: Expression<any>, value: string): RawBuilder<SqlBool> {
  if (dialect !== 'postgres') return sql<SqlBool>`${column} = ${value}`;
  return Buffer.byteLength(value) <= 2000
    ? sql<SqlBool>`(${column} = ${value} and octet_length(${column}) <= 2000)`
    : sql<SqlBool>`(md5(${column}) = md5(${value}) and ${column} = ${value} and octet_length(${column}) > 2000)`;
}

/** The dialect of a connection or transaction, for code that is handed one without the context.
 * (Kysely's executor is marked internal; this is the one place that reads it.) */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Row ids are PostgreSQL `integer` (int4): a larger id in a path or body can only miss, and must not reach SQL. */
export const MAX_ROW_ID = 2_147_483_647;
