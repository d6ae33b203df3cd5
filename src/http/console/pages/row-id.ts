/** A row id from a console path; 0 (matched by no row) for anything that is not one, so a bad id is "not
 * found" rather than a database error (PostgreSQL refuses NaN or 2^31 for an integer column). */
export function rowIdOf(text: string | undefined): number {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 31 ? n : 0;
}
