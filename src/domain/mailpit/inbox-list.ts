// The console's Activity as Mailpit lists it: a Sandbox server's messages matching a search in Mailpit's
// syntax (query.ts, filters.ts), or any server's messages of every stream at once, newest first with keyset
// paging (a page costs the same deep in the list as at its top); and a message's neighbours in that list,
// for the message page's newer/older links. Every statement runs under the read time limit.
import { sql, type SqlBool } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Cursor } from '../messages/search-query.js';
import { ITEM_COLUMNS, messageItem, recipientsOf, type MessageRow } from '../messages/view.js';
import { limitedRead } from '../read-limit.js';
import { needsState, planTerms, scope, type MailpitServer } from './filters.js';
import { joiningStatePerPartition } from './state-join.js';
import { parseQuery, type Term } from './query.js';

interface ServerLike {
  id: number;
  delivery_type: string;
}

/** The server as the list reads it: a Sandbox server's Sandbox messages, or every message of a Live server. */
export const listScopeOf = (server: ServerLike): MailpitServer => ({ id: server.id, accountId: 0, sandbox: server.delivery_type === 'Sandbox' });

/** The terms of a console search: Mailpit's syntax on a Sandbox server only (a Live server has no search box). */
export function consoleTerms(server: ServerLike, q: string | undefined): Term[] {
  return server.delivery_type === 'Sandbox' && q?.trim() ? parseQuery(q) : [];
}

const after = (c: Cursor) => sql<SqlBool>`(messages.received_at < ${c.at} or (messages.received_at = ${c.at} and messages.id < ${c.id}))`;
const before = (c: Cursor) => sql<SqlBool>`(messages.received_at > ${c.at} or (messages.received_at = ${c.at} and messages.id > ${c.id}))`;

/** A page of the list (the API's message summaries) older than `older`, newest first. */
export async function inboxPage(ctx: AppContext, server: ServerLike, terms: Term[], older: Cursor | undefined, count: number, signal?: AbortSignal) {
  return limitedRead(ctx, signal, async (ctx) => {
    const s = listScopeOf(server);
    // The rarest trigrams of each text term narrow the search first (filters.ts, planTerms).
    let q = scope(ctx, s, terms, undefined, terms.length ? await planTerms(ctx, s, terms) : undefined);
    if (older) q = q.where(after(older));
    const ordered = q.select('messages.id').orderBy('messages.received_at', 'desc').orderBy('messages.id', 'desc').limit(count);
    const ids = (await joiningStatePerPartition(ctx, needsState(terms), () => ordered.execute())).map((r) => (r as { id: string }).id);
    if (ids.length === 0) return [];
    const [rows, recipients] = await Promise.all([ctx.db.selectFrom('messages').select([...ITEM_COLUMNS]).where('id', 'in', ids).execute() as Promise<MessageRow[]>, recipientsOf(ctx, ids)]);
    const byId = new Map(rows.filter((r) => r.server_id === server.id).map((r) => [r.id, r]));
    return ids.flatMap((id) => (byId.has(id) ? [messageItem(byId.get(id)!, recipients.get(id) ?? [])] : []));
  });
}

/** The messages just newer and just older than `id` in the list of `terms` (null at either end). */
export async function neighbours(ctx: AppContext, server: ServerLike, id: string, terms: Term[]): Promise<{ newer: string | null; older: string | null }> {
  const s = listScopeOf(server);
  return limitedRead(ctx, undefined, async (ctx) => {
    const m = await ctx.db.selectFrom('messages').select(['received_at']).where('id', '=', id).where('server_id', '=', server.id).executeTakeFirst();
    if (!m) return { newer: null, older: null };
    const at: Cursor = { at: m.received_at, id };
    const planned = terms.length ? await planTerms(ctx, s, terms) : undefined;
    const [n, o] = await joiningStatePerPartition(ctx, needsState(terms), () => Promise.all([
      scope(ctx, s, terms, undefined, planned).where(before(at)).select('messages.id').orderBy('messages.received_at', 'asc').orderBy('messages.id', 'asc').limit(1).executeTakeFirst(),
      scope(ctx, s, terms, undefined, planned).where(after(at)).select('messages.id').orderBy('messages.received_at', 'desc').orderBy('messages.id', 'desc').limit(1).executeTakeFirst(),
    ]));
    return { newer: (n as { id: string } | undefined)?.id ?? null, older: (o as { id: string } | undefined)?.id ?? null };
  });
}
