// A message's Tag compared case-insensitively (Mailpit's tag: term), written so that the index of migration
// 0039 (messages_sandbox_tag) serves it. PostgreSQL indexes md5(lower(tag)): a Tag may be 1000 characters,
// more than a b-tree entry holds (0010); the digest finds the candidates, lower(tag) = value decides, so a
// digest collision cannot match. SQLite has no entry limit and indexes lower(tag) itself.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './dialect-tag.js';

/** lower(`column`) = `lowered` (already lowercase), NULL when the column is NULL. */
export function foldedTagEquals(dialect: Dialect, column: Expression<any>, lowered: string): RawBuilder<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`(md5(lower(${column})) = md5(${lowered}) and lower(${column}) = ${lowered})`
    : sql<SqlBool>`lower(${column}) = ${lowered}`;
}
