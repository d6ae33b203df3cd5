// Multi-row INSERT without the query builder. Building a 500-row insert with Kysely's builder costs ~20 µs
// per row in compilation alone (measured: bench/README.md), more than SQLite needs to store the row; the
// sending path stores thousands of rows a second, so it writes its SQL text directly. Identifiers are our
// own constants; every value is a bound parameter.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Dialect } from './database.js';
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
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const tail = suffix ? ` ${suffix}` : '';
  const perStatement = Math.max(1, Math.min(maxRows, Math.floor(MAX_PARAMS / columns.length)));
  const out: Record<string, unknown>[] = [];
  const pg = dialect === 'postgres';
  for (let start = 0; start < rows.length; start += perStatement) {
    const end = Math.min(rows.length, start + perStatement);
    const params: unknown[] = [];
    let text = head;
    for (let r = start; r < end; r++) {
      const row = rows[r];
      text += r === start ? '(' : ', (';
      for (let c = 0; c < row.length; c++) {
        params.push(row[c]);
        if (c > 0) text += ', ';
        text += pg ? `$${params.length}` : '?';
      }
      text += ')';
    }
    const result = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text + tail, params));
    if (suffix) for (const row of result.rows) out.push(row);
  }
  return out;
}

export async function insertRows(trx: Kysely<Database>, dialect: Dialect, table: keyof Database & string, columns: readonly string[], rows: unknown[][]): Promise<void> {
  await insertRowsWith(trx, dialect, table, columns, rows);
}
