// Which trigrams of a substring term the SQLite FTS5 tables of migration 0034 are asked for.
//
// A phrase query of every trigram of the term reads the doclist of each of them, and most trigrams of real
// text are in a large share of the rows ("@ex" of every address at one domain, "Sub" of every subject): the
// query then costs as much as the most common trigram, whatever the term's own rarity (a second at a million
// recipients for one address). The few rarest trigrams alone narrow the rows as well, read far less, and
// any subset of a term's trigrams keeps every row that contains the term, so the caller checks the candidate
// rows' text itself (LIKE) and the result is exactly that check's. How common each trigram is, is counted up
// to a cap (a query that stops at the cap): cheap for any trigram, and enough to tell the rare ones.
//
// A term can be rare while each of its trigrams is common: the digits of "Subject 9998963" or of
// "user12345@example.net" are each in a few rows in a thousand, so in more rows than any cap at millions of
// messages, but together in a handful. On SQLite the few sparsest trigrams are then ANDed and that AND is
// counted up to a cap too: FTS5 intersects doclists by seeking each to the next rowid of the others (its
// doclist index skips the pages between), so the AND reads about the sparsest doclist, and the count stops
// at the cap for a term in many rows ("hello"), which the walk of the newest rows then answers.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { dayPartitions } from './partitions.js';

/** Trigrams probed at most: spread over a long term, any subset is correct. */
const MAX_PROBES = 24;

/**
 * The caps of the counts. Exported as an object so that a test can lower them and reach, with a few rows,
 * the plans that millions of rows take.
 */
export const trigramCaps = {
  /** First pass: a trigram under this many rows is rare enough to drive alone. */
  small: 256,
  /** Second pass, when no trigram is under `small`: a trigram above this is too common to narrow alone. */
  large: 16_384,
  /** SQLite, when every trigram is common: an AND of the sparsest in fewer rows than this narrows the term. */
  combined: 16_384,
};
/**
 * trigramCaps.large for a count in one day's partition (PostgreSQL, samplePartition): a common trigram is counted by
 * matching that many rows' text (ILIKE folds each), so the cap is what such a probe costs; and a trigram in
 * more of a day's rows than this narrows too little over every day for its index to be read first.
 */
export const CAP_LARGE_IN_A_DAY = 1024;
/** Trigrams ANDed at most: each more one reads its doclist for less and less narrowing. */
const MAX_CHOSEN = 3;
/**
 * SQLite: trigrams counted in the second pass at most, the sparsest by the first pass's spans. A count to
 * the large cap reads that many rows of the trigram (milliseconds at millions of rows, against a fraction
 * of one to the small cap), and the first rows' span already tells a trigram in most rows ("Sub", "@ex").
 */
const SECOND_PASS = 2 * MAX_CHOSEN;

/**
 * The distinct trigrams (code points) of `value`, at most MAX_PROBES of them, spread over it. Not folded here:
 * FTS5 folds a query's tokens as it folded the text (a JavaScript toLowerCase may change a string's length).
 */
export function trigramsOf(value: string): string[] {
  const chars = [...value];
  const all: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const t = chars.slice(i, i + 3).join('');
    if (!seen.has(t)) {
      seen.add(t);
      all.push(t);
    }
  }
  if (all.length <= MAX_PROBES) return all;
  const step = all.length / MAX_PROBES;
  return Array.from({ length: MAX_PROBES }, (_, k) => all[Math.floor(k * step)]!);
}

/** One FTS5 token: a string in double quotes, a quote doubled. */
const token = (t: string) => `"${t.replace(/"/g, '""')}"`;
const restrict = (columns: string[], expr: string) => `{${columns.join(' ')}} : ${expr}`;

/**
 * How many rows match, up to a cap, and the rowids those rows span. FTS5 returns them in rowid order, so a
 * trigram at the cap spans more rowids the sparser it is: the same read tells the common trigrams apart.
 */
async function rowsUpTo(db: Kysely<Database>, table: string, match: string, cap: number): Promise<{ n: number; span: number }> {
  const { rows } = await sql<{ n: number; lo: number | null; hi: number | null }>`select count(*) as n, min(rowid) as lo, max(rowid) as hi from (select rowid from ${sql.table(table)} where ${sql.table(table)} match ${match} limit ${sql.lit(cap)})`.execute(db);
  const r = rows[0];
  return { n: Number(r?.n ?? 0), span: r?.lo == null || r.hi == null ? 0 : Number(r.hi) - Number(r.lo) + 1 };
}

/** How many rows have a trigram, counted up to a cap. */
export type TrigramCount = (trigram: string, cap: number) => Promise<number>;

async function ranked(tris: string[], count: TrigramCount, cap: number): Promise<Array<{ t: string; n: number }>> {
  const out: Array<{ t: string; n: number }> = [];
  for (const t of tris) out.push({ t, n: await count(t, cap) });
  return out.sort((a, b) => a.n - b.n);
}

export interface RarestOptions {
  /** The second pass's cap (trigramCaps.large): CAP_LARGE_IN_A_DAY when the counts are of one day's partition. */
  capLarge?: number;
  /** How many rowids a trigram's rows counted in the first pass spanned: the second pass counts the sparsest. */
  spanOf?: (trigram: string) => number;
}

/**
 * The rarest of these trigrams (at most MAX_CHOSEN), or null when every one is in trigramCaps.large rows or
 * more (the caller may then try their combination, or read the rows in order and check them, which finds
 * a common term sooner). A trigram no row has comes first, and the query then matches nothing at once.
 */
export async function rarestTrigrams(tris: string[], count: TrigramCount, o: RarestOptions = {}): Promise<string[] | null> {
  if (tris.length === 0) return null;
  const small = trigramCaps.small;
  const capLarge = o.capLarge ?? trigramCaps.large;
  let r = await ranked(tris, count, small);
  if (r[0]!.n >= small) {
    const spanOf = o.spanOf;
    r = await ranked(spanOf ? [...tris].sort((a, b) => spanOf(b) - spanOf(a)).slice(0, SECOND_PASS) : tris, count, capLarge);
  }
  const cap = r[0]!.n >= small ? capLarge : small;
  const chosen = r.filter((x) => x.n < cap).slice(0, MAX_CHOSEN);
  return chosen.length === 0 ? null : chosen.map((x) => x.t);
}

const andOf = (columns: string[], tris: string[]) => restrict(columns, `(${tris.map(token).join(' AND ')})`);

/**
 * SQLite: the FTS5 query (columns restricted) of the rarest trigrams of `value`, or, when every trigram is
 * common, of the sparsest few whose AND is in fewer than trigramCaps.combined rows; else null (the rows are
 * read in order).
 */
export async function rareTrigramQuery(db: Kysely<Database>, table: string, columns: string[], value: string): Promise<string | null> {
  // The spans of each pass apart: a trigram counted at the large cap spans more rowids than at the small.
  const spans = new Map<number, Map<string, number>>();
  const chosen = await rarestTrigrams(
    trigramsOf(value),
    async (t, cap) => {
      const { n, span } = await rowsUpTo(db, table, restrict(columns, token(t)), cap);
      if (!spans.has(cap)) spans.set(cap, new Map());
      spans.get(cap)!.set(t, span);
      return n;
    },
    { spanOf: (t) => spans.get(trigramCaps.small)?.get(t) ?? 0 },
  );
  if (chosen !== null) return andOf(columns, chosen);
  // Every trigram counted in the second pass is common (each at its cap): the sparsest of them first.
  const sparsest = [...(spans.get(trigramCaps.large) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, MAX_CHOSEN).map(([t]) => t);
  if (sparsest.length < 2) return null;
  const combined = andOf(columns, sparsest);
  return (await rowsUpTo(db, table, combined, trigramCaps.combined)).n < trigramCaps.combined ? combined : null;
}

/**
 * PostgreSQL: the trigrams pg_trgm can look up for a LIKE pattern of them (it indexes the trigrams of words:
 * letters and digits; a pattern with another character may have none, and GIN would then read the whole
 * index).
 */
export function wordTrigramsOf(value: string): string[] {
  return trigramsOf(value).filter((t) => /^[\p{L}\p{N}]{3}$/u.test(t));
}

/** Rows a day partition needs to stand as the probes' sample. */
const SAMPLE_ROWS = 1000;

/**
 * PostgreSQL: the day partition of `table` that the probes count in, or null (no day partition with rows:
 * the whole table is counted). A probe over the partitioned table is planned over every partition, which
 * costs more than running it (40-130 ms against 1-5 ms at a million messages); a recent day is a sample of
 * what the term's trigrams are like, planned as one table. Of the newest days (up to `now`), the fullest by
 * the planner's statistics: the newest day is often a part of one (today's, so far), where every trigram
 * stays under the caps and a word in every message would be taken for a rare one.
 */
export async function samplePartition(db: Kysely<Database>, table: string, now: number): Promise<string | null> {
  // The planner's row estimate is -1 before a first analyze, so such a day is tried after the others.
  const days = (await dayPartitions(db, table))
    .filter((p) => p.day <= now)
    .sort((a, b) => b.day - a.day)
    .slice(0, 3);
  // The fullest first; among equals the newest (the sort is stable).
  for (const { name } of days.sort((a, b) => b.rows - a.rows)) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from (select 1 from ${sql.table(name)} limit ${sql.lit(SAMPLE_ROWS)}) as s`.execute(db);
    if (Number(rows[0]?.n ?? 0) >= SAMPLE_ROWS) return name;
  }
  return null;
}
