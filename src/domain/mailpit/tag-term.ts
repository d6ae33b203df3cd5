// Mailpit's tag: term (filters.ts). A message's tags are its Tag, or, once tags were set through the API
// (tags.ts), those in mailpit_state.tags (few messages, their own partial index), which replace it. Matched
// case-insensitively, as Mailpit keeps tags unique whatever their case.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../app-context.js';

type Ctx = Pick<AppContext, 'db' | 'database'>;

/** The message's tags contain `tag`: both places read per message, which no index serves. Two-valued. */
export function tagged(ctx: Pick<AppContext, 'database'>, tag: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`((s.tags is null and lower(coalesce(messages.tag, '')) = ${tag.toLowerCase()}) or (s.tags is not null and ${ctx.database.sql.contains(sql.ref('s.tags'), JSON.stringify(tag))}))`;
}

/**
 * `tagged` where no message has `tag` through the API alone (see planTag): the folded Tag (the index of
 * migration 0039, in time order) less the messages whose API tags dropped it. NULL for an untagged message,
 * so it is never negated.
 */
export function tagTerm(ctx: Pick<AppContext, 'database'>, tag: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ctx.database.sql.foldedTagEquals(sql.ref('messages.tag'), tag.toLowerCase())} and (s.tags is null or ${ctx.database.sql.contains(sql.ref('s.tags'), JSON.stringify(tag))}))`;
}

/**
 * Up to `max` + 1 messages that have `tag` through the API (their state's list) while their own Tag is
 * another. The states listing the tag are read first, alone: few (tags set through the API), and on
 * PostgreSQL a scan of the state's day partitions is planned in ~2 ms where its join with messages' took
 * ~20; their messages are then read by id, pruned to their days. Joined in one statement when the states are
 * many.
 */
async function apiOnly(ctx: Ctx, serverId: number, tag: string, sandbox: RawBuilder<SqlBool>, max: number): Promise<Array<{ id: string }>> {
  const listed = sql<SqlBool>`s.server_id = ${serverId} and s.tags is not null and ${ctx.database.sql.contains(sql.ref('s.tags'), JSON.stringify(tag))}`;
  const notOwn = sql<SqlBool>`${sandbox} and lower(coalesce(messages.tag, '')) <> ${tag.toLowerCase()}`;
  const { rows: states } = await sql<{ id: string }>`select s.message_id as id from mailpit_state s where ${listed} limit ${max + 1}`.execute(ctx.db);
  if (states.length === 0) return [];
  if (states.length <= max) {
    return (await sql<{ id: string }>`select messages.id from messages where messages.id in (${sql.join(states.map((r) => r.id))}) and ${notOwn}`.execute(ctx.db)).rows;
  }
  return (await sql<{ id: string }>`select s.message_id as id from mailpit_state s join messages on messages.id = s.message_id where ${listed} and ${notOwn} limit ${max + 1}`.execute(ctx.db)).rows;
}

/**
 * How a (not negated, non-empty) tag: term is matched. 'indexed': no message of the server has the tag
 * through the API while its own Tag is another, so `tagTerm` is exact and the index drives the search. Else
 * the matching messages as ids when at most `max` (the Tag's from the index, the API's from theirs), or null:
 * `tagged`, read per message.
 */
export async function planTag(ctx: Ctx, server: { id: number; sandbox: boolean }, tag: string, max: number): Promise<'indexed' | string[] | null> {
  const v = tag.toLowerCase();
  const sandbox = server.sandbox ? sql<SqlBool>`messages.sandbox = ${sql.lit(1)}` : sql<SqlBool>`1 = 1`;
  const extra = await apiOnly(ctx, server.id, tag, sandbox, max);
  if (extra.length === 0) return 'indexed';
  if (extra.length > max) return null;
  const own = await ctx.db
    .selectFrom('messages')
    .select('messages.id')
    .where('messages.server_id', '=', server.id)
    .where(sandbox)
    .where(ctx.database.sql.foldedTagEquals(sql.ref('messages.tag'), v))
    .limit(max + 1)
    .execute();
  if (own.length + extra.length > max) return null;
  const candidates = [...own.map((r) => r.id), ...extra.map((r) => r.id)];
  const found = await ctx.db
    .selectFrom('messages')
    .leftJoin('mailpit_state as s', 's.message_id', 'messages.id')
    .select('messages.id')
    .where('messages.id', 'in', candidates)
    .where(tagged(ctx, tag))
    .execute();
  return found.map((r) => r.id);
}
