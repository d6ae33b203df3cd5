// GET /api/v1/messages and /search, DELETE /messages and /search: Mailpit's MessagesSummary over one
// server's messages, newest first (received_at, then id), paged by start/limit. Ids of the page are cut
// first (for a list, from the index of migration 0031 alone), then only those messages are read.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { deleteMessagesCascading } from '../../infra/db/partitions-cascade.js';
import { cancelJobsOfMessages } from '../../infra/jobs/cancel.js';
import { needsState, scope, type MailpitServer } from './filters.js';
import type { Term } from './query.js';
import { readCount } from './read-state.js';
import { allTags } from './tags.js';
import { listItem, loadMessages } from './view.js';

/** A page larger than this is cut to it: every entry is read and its source composed. */
export const MAX_LIMIT = 1000;

export interface Paging {
  start: number;
  limit: number;
  /** Mailpit's `before`: only messages received before this instant. */
  before?: number;
}

async function count(ctx: AppContext, server: MailpitServer): Promise<number> {
  const r = await scope(ctx, server).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  return Number((r as { n?: number } | undefined)?.n ?? 0);
}

/**
 * A search in one pass, as Mailpit's own: the ids of every match in order with their read flags, from which
 * the counts and the page are cut. A search reads every message anyway (substrings have no index); a count
 * and a page as two statements read them twice.
 */
async function searchPass(ctx: AppContext, server: MailpitServer, terms: Term[], p: Paging) {
  const q = scope(ctx, server, terms, p.before);
  const joined = needsState(terms) ? q : q.leftJoin('mailpit_state as s', 's.message_id', 'messages.id');
  const rows = (await joined
    .select(['messages.id', sql<number>`coalesce(s.read, 0)`.as('r')])
    .orderBy('messages.received_at', 'desc')
    .orderBy('messages.id', 'desc')
    .execute()) as Array<{ id: string; r: number }>;
  const limit = Math.min(p.limit, MAX_LIMIT);
  const ids = rows.slice(p.start, p.start + limit).map((r) => r.id);
  return { n: rows.length, unread: rows.filter((r) => Number(r.r) !== 1).length, messages: (await loadMessages(ctx, server, ids, { list: true })).map((m) => listItem(ctx, m)) };
}

async function page(ctx: AppContext, server: MailpitServer, p: Paging) {
  const limit = Math.min(p.limit, MAX_LIMIT);
  if (limit === 0) return [];
  const ids = (
    await scope(ctx, server)
      .select('messages.id')
      .orderBy('messages.received_at', 'desc')
      .orderBy('messages.id', 'desc')
      .limit(limit)
      .offset(p.start)
      .execute()
  ).map((r) => (r as { id: string }).id);
  return (await loadMessages(ctx, server, ids, { list: true })).map((m) => listItem(ctx, m));
}

/** GET /api/v1/messages (terms empty) and GET /api/v1/search. */
export async function listMessages(ctx: AppContext, server: MailpitServer, p: Paging, terms: Term[] | null = null) {
  const searching = terms !== null || p.before !== undefined;
  const [total, read, tags, found] = await Promise.all([
    count(ctx, server),
    readCount(ctx, server.id),
    allTags(ctx, server),
    searching ? searchPass(ctx, server, terms ?? [], p) : page(ctx, server, p).then((messages) => ({ n: -1, unread: -1, messages })),
  ]);
  const unread = Math.max(0, total - read);
  return {
    total,
    unread,
    count: found.messages.length,
    messages_count: searching ? found.n : total,
    messages_unread: searching ? found.unread : unread,
    start: p.start,
    tags,
    messages: found.messages,
  };
}

/** The newest message's id (Mailpit's `latest`), of a search when terms are given. */
export async function latestId(ctx: AppContext, server: MailpitServer, terms: Term[] = []): Promise<string | null> {
  const r = await scope(ctx, server, terms).select('messages.id').orderBy('messages.received_at', 'desc').orderBy('messages.id', 'desc').limit(1).executeTakeFirst();
  return (r as { id: string } | undefined)?.id ?? null;
}

const CHUNK = 500;

/** Deletes these messages of the server (other ids ignored) with everything recorded about them. */
export async function deleteMessages(ctx: AppContext, server: MailpitServer, ids: string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    deleted += await ctx.db.transaction().execute(async (trx) => {
      let q = trx.selectFrom('messages').select('id').where('id', 'in', part).where('server_id', '=', server.id);
      if (server.sandbox) q = q.where('sandbox', '=', 1);
      const mine = (await q.execute()).map((r) => r.id);
      // A fake bounce's job (delivery/fake-bounce.ts) of a deleted message has nothing left to do.
      await cancelJobsOfMessages(trx, mine);
      return deleteMessagesCascading(trx, mine, server.id);
    });
  }
  return deleted;
}

/** Deletes every message of the server, or those matching a search, a chunk per transaction. */
export async function deleteMatching(ctx: AppContext, server: MailpitServer, terms: Term[]): Promise<number> {
  let deleted = 0;
  for (;;) {
    const ids = (await scope(ctx, server, terms).select('messages.id').limit(CHUNK).execute()).map((r) => (r as { id: string }).id);
    if (ids.length === 0) return deleted;
    const n = await deleteMessages(ctx, server, ids);
    deleted += n;
    if (n === 0) return deleted;
  }
}
