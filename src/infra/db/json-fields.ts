// JSON is stored as text on both databases (docs/architecture.md, "Storage rules"); reading a field inside
// it takes different SQL on each.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './dialect-tag.js';

/**
 * The top-level field `key` of the JSON object in `column` equals the string `value`. PostgreSQL: the
 * text cast to jsonb and ->>. SQLite: json_each over the object, comparing each value as text. No index
 * serves either: use it to narrow what indexed filters found.
 */
export function jsonFieldEquals(dialect: Dialect, column: Expression<any>, key: string, value: string): RawBuilder<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`(${column}::jsonb ->> ${key}) = ${value}`
    : sql<SqlBool>`exists (select 1 from json_each(${column}) where json_each.key = ${key} and cast(json_each.value as text) = ${value})`;
}
