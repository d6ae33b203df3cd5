// The SQL that differs between SQLite and PostgreSQL for the queries of the domain, as one object built once
// with the database (openDatabase), the way Kysely's dialects are objects: the domain asks it for an
// expression or a plan choice and never learns which database it talks to. The older free functions
// (util.ts, json-fields.ts, planner.ts, raw-insert.ts, row-locks.ts, raw-query.ts) take a dialect tag; this
// object answers for them, so that the tag stays in infra/db (test/structure/dialect-rules.test.ts).
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './dialect-tag.js';
import type { Database } from './schema.js';
import { containsInsensitive, tagEquals } from './util.js';
import { jsonFieldEquals } from './json-fields.js';
import { foldedTagEquals } from './tag-folded.js';
import { filtersMessagesByIdList, readsRowsSkippedByOffset } from './planner.js';
import { CAP_LARGE_IN_A_DAY, rareTrigramQuery, rarestTrigrams, samplePartition, trigramCaps, wordTrigramsOf } from './text-index.js';
import { FOLDED_CONTAINS } from './text-functions.js';
import { runTimeLimited, type TimeLimitOptions } from './time-limit.js';
import { insertRows, insertRowsWith } from './raw-insert.js';
import { counterShards, lockRowsForUpdate } from './row-locks.js';
import { selectRaw } from './raw-query.js';

/** The text columns of a message that migration 0034 indexes for substring search (Sandbox messages). */
export type MessageTextColumn = 'subject' | 'from_raw' | 'reply_to' | 'text_body' | 'html_body' | 'tag' | 'attachments';
/** The text columns of a recipient indexed the same way. */
export type RecipientTextColumn = 'email' | 'name';

/**
 * A trigram index answers a substring of 3 characters (code points) or more: a shorter one has no trigram.
 * Such a term is matched by reading the column (LIKE/ILIKE over the rows the other filters leave), which is
 * linear in the text and bounded by the statement's time limit.
 */
export const TRIGRAM = 3;
const indexable = (value: string) => [...value].length >= TRIGRAM;

/** What a substring term is matched against: message columns (of the `messages` row) or a recipient's. */
export type TextTarget =
  | { table: 'messages'; columns: MessageTextColumn[]; /** a Sandbox message (see messageContains) */ indexed: boolean }
  | { table: 'recipients'; alias: string; columns: RecipientTextColumn[] };

/**
 * How a substring term is found, chosen with a look at the index (textPlan). `check` is the match itself,
 * exact, never NULL. `narrowing`, when set, holds for every row that satisfies `check` and is answered by an
 * index from few candidates: the row is (`narrowing` and `check`), and the query should be driven by it (no
 * other index of the table chosen before it, see `unindexed`). null: `check` alone, which the database answers
 * from its own index where it has one for it, or by reading the rows the other conditions leave.
 */
export interface TextPlan {
  narrowing: RawBuilder<SqlBool> | null;
  check: RawBuilder<SqlBool>;
}

export interface SqlDialect {
  /** Case-insensitive substring (`value` escaped: % and _ match literally); read from the column, no index. */
  contains(column: Expression<any>, value: string): RawBuilder<SqlBool>;
  /** Tag equality written so that the tag indexes serve it (util.ts, tagEquals). */
  tagEquals(column: Expression<any>, value: string): RawBuilder<SqlBool>;
  /** lower(`column`) = `lowered`, served by the folded tag index of migration 0039 (tag-folded.ts); NULL for a NULL column. */
  foldedTagEquals(column: Expression<any>, lowered: string): RawBuilder<SqlBool>;
  /** The top-level field `key` of the JSON object text in `column` equals the string `value`. */
  jsonFieldEquals(column: Expression<any>, key: string, value: string): RawBuilder<SqlBool>;
  /** planner.ts: an index scan reads the row of every entry skipped by OFFSET (cut ids first). */
  readonly readsRowsSkippedByOffset: boolean;
  /** planner.ts: messages is day-partitioned, a list of ids prunes it where a join does not. */
  readonly filtersMessagesByIdList: boolean;
  /** The message tables (messages, mailpit_state, ...) share day partitions (migration 0023): a join of two
   * of them can be planned partition by partition (mailpit/state-join.ts). */
  readonly partitionedByDay: boolean;
  /** A Mailpit search's bounded count and its page are asked in one statement (mailpit/listing.ts): measured
   * faster on PostgreSQL; on SQLite no faster, and its walk of a page is cheap. */
  readonly countsWithPage: boolean;
  /**
   * One of `messages.<columns>` contains `value`, case-insensitively (Unicode case folding on both databases), never
   * NULL (so that NOT of it holds for a NULL column). `indexed`: the message is a Sandbox one (`messages.sandbox
   * = 1` is among the query's conditions), whose text migration 0034 indexes.
   */
  messageContains(columns: MessageTextColumn[], value: string, indexed: boolean): RawBuilder<SqlBool>;
  /** The same for `alias.<column>` of message_recipients (every recipient is indexed). */
  recipientContains(alias: string, columns: RecipientTextColumn[], value: string): RawBuilder<SqlBool>;
  /**
   * The plan of a substring term (TextPlan), case-insensitive as `contains`. It may read the index to choose
   * (SQLite: how common the term's trigrams are, text-index.ts), so it is asked once per term and query.
   */
  textPlan(db: Kysely<Database>, target: TextTarget, value: string): Promise<TextPlan>;
  /** `column` in a condition that must not make the planner choose its index (SQLite's unary +). */
  unindexed(column: Expression<any>): RawBuilder<any>;
  /**
   * Runs `run` with every statement it makes under a time limit, and stops the statement under way when
   * `signal` aborts (the request that asked went away). Throws TimeLimitExceeded when the limit is hit.
   */
  timeLimited<T>(db: Kysely<Database>, options: TimeLimitOptions, run: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Multi-row INSERT written as SQL text, without the query builder (raw-insert.ts). */
  insertRows(trx: Kysely<Database>, table: keyof Database & string, columns: readonly string[], rows: unknown[][]): Promise<void>;
  /** insertRows with `suffix` after every statement's VALUES list (ON CONFLICT, RETURNING); returns the rows returned. */
  insertRowsWith(
    trx: Kysely<Database>,
    table: keyof Database & string,
    columns: readonly string[],
    rows: unknown[][],
    suffix?: string,
    maxRows?: number,
  ): Promise<Record<string, unknown>[]>;
  /** Locks these rows until the transaction ends, in key order (row-locks.ts; nothing on SQLite, the only writer). */
  lockRowsForUpdate(trx: Kysely<Database>, table: 'messages' | 'servers' | 'console_users', ids: ReadonlyArray<string | number>): Promise<void>;
  /** Into how many rows a hot counter is split (row-locks.ts, counterShards). */
  readonly counterShards: number;
  /** A raw SELECT with `?` placeholders, for hot paths (raw-query.ts). */
  selectRaw<R>(db: Kysely<Database>, text: string, params: unknown[]): Promise<R[]>;
}

/** The members that only pass the tag on to the free functions. */
function tagged(d: Dialect) {
  return {
    contains: (column: Expression<any>, value: string) => containsInsensitive(d, column, value),
    tagEquals: (column: Expression<any>, value: string) => tagEquals(d, column, value),
    foldedTagEquals: (column: Expression<any>, lowered: string) => foldedTagEquals(d, column, lowered),
    jsonFieldEquals: (column: Expression<any>, key: string, value: string) => jsonFieldEquals(d, column, key, value),
    readsRowsSkippedByOffset: readsRowsSkippedByOffset(d),
    filtersMessagesByIdList: filtersMessagesByIdList(d),
    partitionedByDay: d === 'postgres',
    countsWithPage: d === 'postgres',
    timeLimited: <T>(db: Kysely<Database>, options: TimeLimitOptions, run: (db: Kysely<Database>) => Promise<T>) => runTimeLimited(d, db, options, run),
    insertRows: (trx: Kysely<Database>, table: keyof Database & string, columns: readonly string[], rows: unknown[][]) => insertRows(trx, d, table, columns, rows),
    insertRowsWith: (trx: Kysely<Database>, table: keyof Database & string, columns: readonly string[], rows: unknown[][], suffix?: string, maxRows?: number) =>
      insertRowsWith(trx, d, table, columns, rows, suffix, maxRows),
    lockRowsForUpdate: (trx: Kysely<Database>, table: 'messages' | 'servers' | 'console_users', ids: ReadonlyArray<string | number>) => lockRowsForUpdate(trx, d, table, ids),
    counterShards: counterShards(d),
    selectRaw: <R>(db: Kysely<Database>, text: string, params: unknown[]) => selectRaw<R>(db, d, text, params),
  };
}

/** FTS5's query syntax: a phrase in double quotes (a quote doubled) restricted to some columns. */
function ftsPhrase(columns: string[], value: string): string {
  return `{${columns.join(' ')}} : "${value.replace(/"/g, '""')}"`;
}

const anyOf = (parts: RawBuilder<SqlBool>[]) => (parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` or `)})`);

function sqliteDialect(): SqlDialect {
  const d: Dialect = 'sqlite';
  return {
    ...tagged(d),
    messageContains(columns, value, indexed) {
      // messages_text (FTS5, trigram, contentless) holds a Sandbox message's text under its rowid (and every
      // message's subject).
      if ((indexed || (columns.length === 1 && columns[0] === 'subject')) && indexable(value)) {
        return sql<SqlBool>`messages.rowid in (select rowid from messages_text where messages_text match ${ftsPhrase(columns, value)})`;
      }
      return anyOf(columns.map((c) => containsInsensitive(d, sql`coalesce(${sql.ref(`messages.${c}`)}, '')`, value)));
    },
    recipientContains(alias, columns, value) {
      if (indexable(value)) return sql<SqlBool>`${sql.ref(`${alias}.id`)} in (select rowid from recipients_text where recipients_text match ${ftsPhrase(columns, value)})`;
      return anyOf(columns.map((c) => containsInsensitive(d, sql.ref(`${alias}.${c}`), value)));
    },
    async textPlan(db, target, value) {
      // A term the index serves (3 characters or more) is checked with Unicode case folding, as FTS5 folds
      // (text-functions.ts), so the candidates are a superset of the check's rows; a shorter one by LIKE,
      // which folds ASCII letters only, as Mailpit's own search on SQLite does.
      const folded = (column: Expression<any>) => (indexable(value) ? sql<SqlBool>`${sql.raw(FOLDED_CONTAINS)}(${column}, ${value})` : containsInsensitive(d, column, value));
      if (target.table === 'messages') {
        const check = anyOf(target.columns.map((c) => folded(sql`coalesce(${sql.ref(`messages.${c}`)}, '')`)));
        const served = target.indexed || (target.columns.length === 1 && target.columns[0] === 'subject');
        const match = served && indexable(value) ? await rareTrigramQuery(db, 'messages_text', target.columns, value) : null;
        return { check, narrowing: match === null ? null : sql<SqlBool>`messages.rowid in (select rowid from messages_text where messages_text match ${match})` };
      }
      const check = anyOf(target.columns.map((c) => folded(sql.ref(`${target.alias}.${c}`))));
      const match = indexable(value) ? await rareTrigramQuery(db, 'recipients_text', target.columns, value) : null;
      return { check, narrowing: match === null ? null : sql<SqlBool>`${sql.ref(`${target.alias}.id`)} in (select rowid from recipients_text where recipients_text match ${match})` };
    },
    unindexed: (column) => sql`+${column}`,
  };
}

function postgresDialect(): SqlDialect {
  const d: Dialect = 'postgres';
  // ILIKE is served by the pg_trgm GIN indexes of migration 0034 (3 characters or more; a shorter pattern
  // reads the rows the other conditions leave). `is not null and` keeps the result two-valued without
  // hiding the ILIKE from the planner, as coalesce() would.
  const ilike = (column: Expression<any>, value: string) => sql<SqlBool>`(${column} is not null and ${containsInsensitive(d, column, value)})`;
  return {
    ...tagged(d),
    messageContains: (columns, value) => anyOf(columns.map((c) => ilike(sql.ref(`messages.${c}`), value))),
    recipientContains: (alias, columns, value) => anyOf(columns.map((c) => ilike(sql.ref(`${alias}.${c}`), value))),
    async textPlan(db, target, value) {
      // GIN serves an ILIKE by reading the posting list of every trigram of the pattern, in every day
      // partition: a term's common trigrams cost as much as the whole column. So the GIN is asked for the
      // rarest word trigrams only (text-index.ts), each as its own ILIKE '%abc%', and the term's ILIKE is
      // written so that no index serves it ((col || '')): it checks the candidates, or, for a term with no
      // rare trigram, the rows read in time order.
      const alias = target.table === 'messages' ? 'messages' : target.alias;
      const table = target.table === 'messages' ? 'messages' : 'message_recipients';
      const ref = (c: string) => sql.ref(`${alias}.${c}`);
      const check = anyOf(target.columns.map((c) => sql<SqlBool>`(${ref(c)} is not null and ${containsInsensitive(d, sql`(${ref(c)} || '')`, value)})`));
      const sandboxOnly = target.table === 'messages' && target.columns.some((c) => c !== 'subject');
      if (sandboxOnly && !target.indexed) return { narrowing: null, check };
      const has = (col: (c: string) => Expression<any>, t: string) => anyOf(target.columns.map((c) => sql<SqlBool>`(${col(c)} is not null and ${containsInsensitive(d, col(c), t)})`));
      // Counted in one day's partition (text-index.ts, samplePartition): the caps then tell the trigrams rare
      // within a day, which the whole table's query, planned once, narrows by.
      const probed = (await samplePartition(db, table, Date.now())) ?? table;
      // A probe's LIMIT makes a scan of the day's rows look cheaper to the planner than the GIN when its
      // estimate of the OR over a message's six columns is high, and a rare trigram (what the first pass
      // looks for) is then looked for in every row of the day: the scan is off for the first pass over
      // messages. Elsewhere the planner's choice stands: for the two columns of a recipient it chose well
      // (a scan finds a common trigram's first rows at once; the GIN builds a bitmap of all of them), and
      // the second pass counts common trigrams, which a scan finds sooner too.
      const steered = target.table === 'messages';
      const planned = steered ? ((await sql<{ s: string }>`select current_setting('enable_seqscan') as s`.execute(db)).rows[0]?.s ?? 'on') : '';
      let scans = planned;
      const scanning = async (want: string) => {
        if (want !== scans) await sql`select set_config('enable_seqscan', ${want}, true)`.execute(db);
        scans = want;
      };
      const count = async (t: string, cap: number) => {
        await scanning(steered && cap <= trigramCaps.small ? 'off' : planned);
        const where = sandboxOnly ? sql`sandbox = 1 and ${has((c) => sql.ref(c), t)}` : has((c) => sql.ref(c), t);
        const { rows } = await sql<{ n: string }>`select count(*) as n from (select 1 from ${sql.table(probed)} where ${where} limit ${sql.lit(cap)}) as probe`.execute(db);
        return Number(rows[0]?.n ?? 0);
      };
      const chosen = await rarestTrigrams(wordTrigramsOf(value), count, probed === table ? {} : { capLarge: CAP_LARGE_IN_A_DAY });
      await scanning(planned);
      if (chosen === null) return { narrowing: null, check };
      return { narrowing: sql<SqlBool>`(${sql.join(chosen.map((t) => has(ref, t)), sql` and `)})`, check };
    },
    unindexed: (column) => sql`${column}`,
  };
}

export function createSqlDialect(dialect: Dialect): SqlDialect {
  return dialect === 'postgres' ? postgresDialect() : sqliteDialect();
}
