// A row id from a console path: a positive 32-bit integer, else 0, which no row has (the look-up then
// answers "not found" instead of querying with NaN or a number PostgreSQL's integer cannot hold).
export function rowIdOf(text: string | undefined): number {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 31 ? n : 0;
}
