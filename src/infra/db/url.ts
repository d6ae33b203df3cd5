/** A PostgreSQL connection URL (postgres:// or postgresql://); anything else names a SQLite file. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
