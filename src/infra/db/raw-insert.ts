// Multi-row INSERT without the query builder. Building a 500-row insert with Kysely's builder costs ~20 µs
// per row in compilation alone (measured: bench/README.md), more than SQLite needs to store the row; the
// sending path stores thousands of rows a second, so it writes its SQL text directly. Identifiers are our
// own constants; every value is a bound parameter.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Dialect } from './dialect-tag.js';
import type { Database } from './schema.js';

/** Bound parameters per statement: below SQLite's 32766 and PostgreSQL's 65535. */
const MAX_PARAMS = 30_000;
const MAX_ROWS = 500;

/** `suffix` follows the VALUES list of every statement (an ON CONFLICT clause, RETURNING); rows that the
 * statements return are concatenated in order. */
export async function insertRowsWith(
  trx: Kysely<Database>,
  dialect: Dialect,
  table: keyof Database & string,
  columns: readonly string[],
  rows: unknown[][],
  suffix = '',
  maxRows = MAX_ROWS,
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const perStatement = Math.max(1, Math.min(maxRows, Math.floor(MAX_PARAMS / columns.length)));
  const out: Record<string, unknown>[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const end = Math.min(rows.length, start + perStatement);
    const params: unknown[] = [];
    for (let r = start; r < end; r++) {
      const row = rows[r];
      for (let c = 0; c < row.length; c++) params.push(row[c]);
    }
    const text = statementText(dialect, table, columns, end - start, suffix);
    const result = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, params));
    if (suffix) for (const row of result.rows) out.push(row);
  }
  return out;
}

// The text of a statement depends only on the table, the columns, the row count and the suffix: kept, so
// that a group commit neither rebuilds a 500-row VALUES list nor rehashes it for the statement cache.
const texts = new Map<string, string>();

function statementText(dialect: Dialect, table: string, columns: readonly string[], rowCount: number, suffix: string): string {
  const key = `${dialect}|${table}|${columns.join(',')}|${rowCount}|${suffix}`;
  let text = texts.get(key);
  if (text !== undefined) return text;
  const pg = dialect === 'postgres';
  text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  let n = 0;
  for (let r = 0; r < rowCount; r++) {
    text += r === 0 ? '(' : ', (';
    for (let c = 0; c < columns.length; c++) {
      n++;
      if (c > 0) text += ', ';
      text += pg ? `$${n}` : '?';
    }
    text += ')';
  }
  if (suffix) text += ` ${suffix}`;
  if (texts.size >= 1000) texts.clear();
  texts.set(key, text);
  return text;
}

export async function insertRows(trx: Kysely<Database>, dialect: Dialect, table: keyof Database & string, columns: readonly string[], rows: unknown[][]): Promise<void> {
  await insertRowsWith(trx, dialect, table, columns, rows);
}
