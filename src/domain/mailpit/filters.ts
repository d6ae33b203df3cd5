// Mailpit's search terms (query.ts) as SQL over one server's messages. What Mailpit matches in its own
// columns maps to mailroom's: addresses to the recipients (To, Cc, Bcc: name or address) and the From and
// Reply-To as given; free text to the subject, From, bodies, recipients, attachment names and the Tag;
// message-id: to the Message-ID header (`<id@return-path domain>`, ids.ts); tags and the read flag to
// mailpit_state (tags.ts, read-state.ts). Every match is a case-insensitive substring, as Mailpit's LIKE,
// answered by the trigram indexes of migration 0034 through the database's SqlDialect (infra/db/sql-dialect.ts)
// for a Sandbox server's messages; a Live server's (MAILROOM_CAPTURE_DIR) are read.
import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { MessageTextColumn, TextPlan } from '../../infra/db/sql-dialect.js';
import type { Term } from './query.js';
import { stateProbe } from './state-join.js';
import { planTag, tagged, tagTerm } from './tag-term.js';

// The builder mixes messages with the left-joined state; its typing is loosened, the columns are checked by tests.
export type Query = SelectQueryBuilder<any, any, any>;

export interface MailpitServer {
  id: number;
  accountId: number;
  sandbox: boolean;
}

type Ctx = Pick<AppContext, 'database' | 'config'>;

/**
 * The text plans of a search's terms (planTerms), by what they match: a term found from an index's few
 * candidates (`narrowing`) drives the query. Without them (scope called alone) every term is written as
 * before any look at the index: correct, and what the indexes serve unaided.
 */
export interface PlannedTerms {
  plans: Map<string, TextPlan>;
  /** Terms whose matching messages were read first, as ids (see planTerms). */
  ids: Map<Term, string[]>;
  /** tag: terms no tag set through the API adds to other messages: matched on the folded tag index (tagTerm). */
  tagIndexed: Set<Term>;
}

/** More matching ids than this are not passed as values: the term stays a condition of the query. */
const MAX_IDS = 5000;

const MESSAGE_TEXT: MessageTextColumn[] = ['subject', 'from_raw', 'text_body', 'html_body', 'tag', 'attachments'];
const messageKey = (columns: MessageTextColumn[], value: string) => `m\u0000${columns.join(',')}\u0000${value}`;
const recipientKey = (value: string) => `r\u0000${value}`;

/** The message columns and recipient values each term matches, as `condition` reads them. */
function textsOf(t: Term): { messages: Array<[MessageTextColumn[], string]>; recipients: string[]; kinds?: string[] } {
  if (t.kind !== 'field') return { messages: [], recipients: [] };
  const v = t.value;
  switch (t.field) {
    case 'to':
      return { messages: [], recipients: [v], kinds: ['To'] };
    case 'cc':
      return { messages: [], recipients: [v], kinds: ['Cc'] };
    case 'bcc':
      return { messages: [], recipients: [v], kinds: ['Bcc'] };
    case 'from':
      return { messages: [[['from_raw'], v]], recipients: [] };
    case 'reply-to':
      return { messages: [[['reply_to'], v]], recipients: [] };
    case 'addressed':
      return { messages: [[['from_raw'], v], [['reply_to'], v]], recipients: [v] };
    case 'subject':
      return { messages: [[['subject'], v]], recipients: [] };
    case 'text':
      return { messages: [[MESSAGE_TEXT, v]], recipients: [v] };
    default:
      return { messages: [], recipients: [] };
  }
}

/** Looks at the text indexes once for the terms' substrings (SqlDialect.textPlan); run it inside the read's time limit. */
export async function planTerms(ctx: Pick<AppContext, 'db' | 'database'>, server: MailpitServer, terms: Term[]): Promise<PlannedTerms> {
  const plans = new Map<string, TextPlan>();
  for (const t of terms) {
    const { messages, recipients } = textsOf(t);
    for (const [columns, value] of messages) {
      const key = messageKey(columns, value);
      if (!plans.has(key)) plans.set(key, await ctx.database.sql.textPlan(ctx.db, { table: 'messages', columns, indexed: server.sandbox }, value));
    }
    for (const value of recipients) {
      const key = recipientKey(value);
      if (!plans.has(key)) plans.set(key, await ctx.database.sql.textPlan(ctx.db, { table: 'recipients', alias: 'r', columns: ['email', 'name'] }, value));
    }
  }
  const ids = new Map<Term, string[]>();
  const tagIndexed = new Set<Term>();
  for (const t of terms) {
    if (t.kind !== 'field' || t.field !== 'tag' || t.exclude || t.value === '') continue;
    const tag = await planTag(ctx, server, t.value, MAX_IDS);
    if (tag === 'indexed') tagIndexed.add(t);
    else if (tag) ids.set(t, tag);
  }
  // Where messages are day partitions (PostgreSQL), a term answered from the index's candidates in an OR of
  // several tables (free text: messages or recipients) is planned as a filter of every partition's rows in
  // time order with a subplan per partition. Each branch is read alone instead, from its index, and the
  // union passed as ids, which prunes the partitions when the statement is planned.
  if (ctx.database.sql.filtersMessagesByIdList) {
    for (const t of terms) {
      const { messages, recipients, kinds } = textsOf(t);
      const branches = [...messages.map(([c, v]) => plans.get(messageKey(c, v))!), ...recipients.map((v) => plans.get(recipientKey(v))!)];
      if (branches.length === 0 || branches.some((b) => !b.narrowing)) continue;
      const found = new Set<string>();
      for (const [columns, value] of messages) {
        const plan = plans.get(messageKey(columns, value))!;
        let q = ctx.db.selectFrom('messages').select('messages.id').where('messages.server_id', '=', server.id).where(sql<SqlBool>`(${plan.narrowing!} and ${plan.check})`);
        if (server.sandbox) q = q.where(sql<SqlBool>`messages.sandbox = ${sql.lit(1)}`);
        for (const r of await q.limit(MAX_IDS + 1).execute()) found.add(r.id);
      }
      for (const value of recipients) {
        const plan = plans.get(recipientKey(value))!;
        const k = kinds ?? ['To', 'Cc', 'Bcc'];
        const { rows } = await sql<{ message_id: string }>`select r.message_id from message_recipients r where ${plan.narrowing!} and r.server_id = ${server.id} and r.kind in (${sql.join(k)}) and ${plan.check} limit ${MAX_IDS + 1}`.execute(ctx.db);
        for (const r of rows) found.add(r.message_id);
      }
      if (found.size <= MAX_IDS) ids.set(t, [...found]);
    }
  }
  return { plans, ids, tagIndexed };
}

/** A condition and whether an index's few candidates answer it whole (so that it may drive the query). */
interface Cond {
  sql: RawBuilder<SqlBool>;
  narrowed: boolean;
}
const plain = (c: RawBuilder<SqlBool>): Cond => ({ sql: c, narrowed: false });
const or = (parts: Cond[]): Cond => ({ sql: sql<SqlBool>`(${sql.join(parts.map((p) => p.sql), sql` or `)})`, narrowed: parts.every((p) => p.narrowed) });

function has(ctx: Ctx, server: MailpitServer, planned: PlannedTerms | undefined, column: MessageTextColumn | MessageTextColumn[], value: string): Cond {
  const columns = Array.isArray(column) ? column : [column];
  const plan = planned?.plans.get(messageKey(columns, value));
  if (!plan) return plain(ctx.database.sql.messageContains(columns, value, server.sandbox));
  return plan.narrowing ? { sql: sql<SqlBool>`(${plan.narrowing} and ${plan.check})`, narrowed: true } : plain(plan.check);
}

// The server's matching recipients read once (a semi-join), not a probe per message: on PostgreSQL a
// correlated probe pays run-time partition pruning per message (seconds for free text over 100,000 messages).
// Planned on SQLite: from the index's candidates when it has few, else a probe of each message's own
// recipients (its index by message), which the walk of the newest messages stops after a page and a window.
function recipient(ctx: Ctx, serverId: number, planned: PlannedTerms | undefined, kinds: string[], value: string): Cond {
  const plan = planned?.plans.get(recipientKey(value));
  const k = sql.join(kinds);
  if (!plan) {
    return plain(sql<SqlBool>`messages.id in (select r.message_id from message_recipients r where r.server_id = ${serverId} and r.kind in (${k}) and ${ctx.database.sql.recipientContains('r', ['email', 'name'], value)})`);
  }
  if (plan.narrowing) {
    return {
      sql: sql<SqlBool>`messages.id in (select r.message_id from message_recipients r where ${plan.narrowing} and ${ctx.database.sql.unindexed(sql.ref('r.server_id'))} = ${serverId} and r.kind in (${k}) and ${plan.check})`,
      narrowed: true,
    };
  }
  if (ctx.database.sql.filtersMessagesByIdList) {
    return plain(sql<SqlBool>`messages.id in (select r.message_id from message_recipients r where r.server_id = ${serverId} and r.kind in (${k}) and ${plan.check})`);
  }
  return plain(sql<SqlBool>`exists (select 1 from message_recipients r where r.message_id = messages.id and r.kind in (${k}) and ${plan.check})`);
}

function condition(ctx: Ctx, server: MailpitServer, t: Term, p: PlannedTerms | undefined): Cond {
  const ids = p?.ids.get(t);
  if (ids) return { sql: ids.length ? sql<SqlBool>`messages.id in (${sql.join(ids)})` : sql<SqlBool>`1 = 0`, narrowed: true };
  const serverId = server.id;
  if (t.kind === 'date') return plain(t.bound === 'after' ? sql<SqlBool>`messages.received_at >= ${t.at}` : sql<SqlBool>`messages.received_at <= ${t.at}`);
  if (t.kind === 'flag') {
    switch (t.flag) {
      case 'read':
        return plain(sql<SqlBool>`coalesce(s.read, 0) = 1`);
      case 'unread':
        return plain(sql<SqlBool>`coalesce(s.read, 0) = 0`);
      case 'tagged':
        return plain(sql<SqlBool>`((s.tags is not null and s.tags <> '[]') or (s.tags is null and coalesce(messages.tag, '') <> ''))`);
      case 'attachment':
        return plain(sql<SqlBool>`messages.attachments <> '[]'`);
      case 'inline':
        // An attachment with a ContentID beside an HTML body is composed as an inline part (delivery/compose.ts).
        return plain(sql<SqlBool>`(messages.html_body is not null and ${ctx.database.sql.contains(sql.ref('messages.attachments'), '"ContentID":"')})`);
    }
  }
  const v = t.value;
  switch (t.field) {
    case 'to':
      return recipient(ctx, serverId, p, ['To'], v);
    case 'cc':
      return recipient(ctx, serverId, p, ['Cc'], v);
    case 'bcc':
      return recipient(ctx, serverId, p, ['Bcc'], v);
    case 'from':
      return has(ctx, server, p, 'from_raw', v);
    case 'reply-to':
      return has(ctx, server, p, 'reply_to', v);
    case 'addressed':
      return or([recipient(ctx, serverId, p, ['To', 'Cc', 'Bcc'], v), has(ctx, server, p, 'from_raw', v), has(ctx, server, p, 'reply_to', v)]);
    case 'subject':
      return has(ctx, server, p, 'subject', v);
    case 'message-id':
      return plain(ctx.database.sql.contains(sql`messages.id || ${`@${ctx.config.returnPathDomain.toLowerCase()}`}`, v.replace(/^<|>$/g, '')));
    case 'tag':
      // Two-valued as `tagged` only where it holds (tagTerm is NULL for an untagged message): never negated.
      return plain(p?.tagIndexed.has(t) && !t.exclude ? tagTerm(ctx, v) : tagged(ctx, v));
    case 'text':
      return or([
        has(ctx, server, p, MESSAGE_TEXT, v),
        recipient(ctx, serverId, p, ['To', 'Cc', 'Bcc'], v),
      ]);
  }
}

/** Whether the terms read mailpit_state (the join is left out otherwise). */
export const needsState = (terms: Term[]) => terms.some((t) => (t.kind === 'flag' && t.flag !== 'attachment' && t.flag !== 'inline') || (t.kind === 'field' && t.field === 'tag'));

/**
 * messages with their state as `s`. `probed` (a page walked without its count window, listing.ts): on
 * PostgreSQL each message's state is looked up as it is walked (stateProbe), planned in a fraction of the
 * partition-by-partition join (state-join.ts), which pays for itself only over thousands of matches.
 */
function withState(ctx: Pick<AppContext, 'db' | 'database'>, probed: boolean) {
  const m = ctx.db.selectFrom('messages');
  return probed && ctx.database.sql.partitionedByDay ? m.leftJoinLateral(stateProbe(ctx), (j) => j.onTrue()) : m.leftJoin('mailpit_state as s', 's.message_id', 'messages.id');
}

/**
 * The server's messages: all of them on a Sandbox server, through the partial index of migration 0031
 * (`sandbox = 1` written as a literal so that SQLite proves the index applies); a Live server's while
 * MAILROOM_CAPTURE_DIR is set.
 */
export function scope(ctx: Pick<AppContext, 'db' | 'database' | 'config'>, server: MailpitServer, terms: Term[] = [], before?: number, planned?: PlannedTerms, probed = false): Query {
  let q = (needsState(terms) ? withState(ctx, probed) : ctx.db.selectFrom('messages')) as unknown as Query;
  const conds = terms.map((t) => ({ t, c: condition(ctx, server, t, planned) }));
  // A term answered from an index's few candidates drives: the server's time index is then not offered to
  // the planner (which, without statistics, prefers it for the order and would walk the whole inbox).
  const driven = conds.some(({ t, c }) => !t.exclude && c.narrowed);
  q = q.where(driven ? sql<SqlBool>`${ctx.database.sql.unindexed(sql.ref('messages.server_id'))} = ${server.id}` : sql<SqlBool>`messages.server_id = ${server.id}`);
  if (server.sandbox) q = q.where(sql<SqlBool>`messages.sandbox = ${sql.lit(1)}`);
  if (before !== undefined) q = q.where('messages.received_at', '<', before);
  for (const { t, c } of conds) q = q.where(t.exclude ? sql<SqlBool>`not ${c.sql}` : c.sql);
  return q;
}
