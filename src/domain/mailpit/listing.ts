// GET /api/v1/messages and /search, DELETE /messages and /search: Mailpit's MessagesSummary over one
// server's messages, newest first (received_at, then id), paged by start/limit. Ids of the page are cut
// in the database first (for a list, from the index of migration 0031 alone), then only those messages are
// read; a Sandbox inbox's figures are kept (counts.ts), a search's counts bounded (COUNT_WINDOW); every
// statement runs under the read time limit.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { deleteMessageRows } from '../message-store/purge.js';
import { cancelJobsOfMessages } from '../../infra/jobs/cancel.js';
import { limitedRead } from '../read-limit.js';
import { needsState, planTerms, scope, type MailpitServer } from './filters.js';
import type { Term } from './query.js';
import { joiningStatePerPartition, stateOfWindow } from './state-join.js';
import { compactIfDue, inboxFigures, keptSearchCount, type InboxFigures } from './counts.js';
import { allTags } from './tags.js';
import { listItem, loadMessages } from './view.js';

/** A page larger than this is cut to it: every entry is read and its source composed. */
export const MAX_LIMIT = 1000;

/**
 * Counts in the database stop here: an exact count walks every match (a million on a busy Sandbox server) on
 * every request. The newest COUNT_WINDOW matches of a search (and every list of a Live server, which has no
 * kept figures) are counted, and how many of them are unread; beyond, the count says COUNT_WINDOW.
 */
export const COUNT_WINDOW = 10_000;

export interface Paging {
  start: number;
  limit: number;
  /** Mailpit's `before`: only messages received before this instant. */
  before?: number;
  /** Aborted when the request went away: its statements stop (domain/read-limit.ts). */
  signal?: AbortSignal;
}

type Ordered = ReturnType<typeof scope>;
const newestFirst = (q: Ordered) => q.orderBy('messages.received_at', 'desc').orderBy('messages.id', 'desc');

/**
 * How many of the newest COUNT_WINDOW entries of `q` there are, and how many of them are unread. Unless the
 * terms read the state themselves (`joined`), the window's ids are cut first from the ordered index, then
 * their read state looked up; a joined window is planned per day partition on PostgreSQL (state-join.ts).
 */
async function counted(ctx: AppContext, q: Ordered, joined: boolean): Promise<{ n: number; unread: number }> {
  const { rows } = await sql<{ n: number | string; unread: number | string | null }>`select count(*) as n, sum(case when w.r = 1 then 0 else 1 end) as unread
    from (${windowOf(ctx, q, joined)}) as w`.execute(ctx.db);
  return { n: Number(rows[0]?.n ?? 0), unread: Number(rows[0]?.unread ?? 0) };
}

/** The newest COUNT_WINDOW entries of `q` in order (id, received_at) with their read flag (r). */
function windowOf(ctx: AppContext, q: Ordered, joined: boolean) {
  if (joined) return newestFirst(q.select(['messages.id', 'messages.received_at', sql<number>`coalesce(s.read, 0)`.as('r')])).limit(COUNT_WINDOW);
  return stateOfWindow(ctx, newestFirst(q.select(['messages.id', 'messages.received_at'])).limit(COUNT_WINDOW));
}

/**
 * `counted` and the page's ids in one statement, when the page lies within the count's window: the window is
 * walked once, not once for the count and again for the page (a search's matches are the costly part: their
 * read state is looked up per match). Same order as `pageIds`: received_at, then id, newest first.
 */
async function countedWithPage(ctx: AppContext, q: Ordered, joined: boolean, start: number, limit: number): Promise<{ n: number; unread: number; ids: string[] }> {
  const { rows } = await sql<{ id: string; k: number | string; n: number | string; unread: number | string | null }>`select x.id, x.k, x.n, x.unread from (
      select w.id, row_number() over (order by w.received_at desc, w.id desc) as k, count(*) over () as n, sum(case when w.r = 1 then 0 else 1 end) over () as unread
        from (${windowOf(ctx, q, joined)}) as w
    ) as x where x.k = 1 or (x.k > ${start} and x.k <= ${start + limit}) order by x.k`.execute(ctx.db);
  const ids = rows.filter((r) => Number(r.k) > start).map((r) => r.id);
  return { n: Number(rows[0]?.n ?? 0), unread: Number(rows[0]?.unread ?? 0), ids };
}

/** The page's ids, cut in the database. */
async function pageIds(q: Ordered, p: Paging): Promise<string[]> {
  const limit = Math.min(p.limit, MAX_LIMIT);
  if (limit === 0) return [];
  return (await newestFirst(q.select('messages.id')).limit(limit).offset(p.start).execute()).map((r) => (r as { id: string }).id);
}

/** Only the page's messages read, as list entries. */
async function pageOf(ctx: AppContext, server: MailpitServer, ids: string[]) {
  return (await loadMessages(ctx, server, ids, { list: true })).map((m) => listItem(ctx, m));
}

/**
 * A search's count (COUNT_WINDOW) and page's ids: the count from the kept figures where they answer it
 * (counts.ts keptSearchCount: then only the page is read), else on PostgreSQL in one statement with the page
 * when the page lies within the window.
 */
async function searched(ctx: AppContext, server: MailpitServer, terms: Term[], found: (probed: boolean) => Ordered, p: Paging): Promise<{ n: number; unread: number; ids: string[] }> {
  const limit = Math.min(p.limit, MAX_LIMIT);
  const kept = p.before === undefined ? await keptSearchCount(ctx, server, terms, COUNT_WINDOW) : null;
  const joined = needsState(terms);
  if (kept) {
    // Only the page is walked: within the window's reach its messages' state is probed one by one (filters.ts
    // withState); a page past it walks more matches than a window, joined partition by partition as one.
    const probed = p.start + limit <= COUNT_WINDOW;
    return joiningStatePerPartition(ctx, joined && !probed, async () => ({ ...kept, ids: await pageIds(found(probed), p) }));
  }
  const q = found(false);
  return joiningStatePerPartition(ctx, joined, async () => {
    // SQLite: the two statements stay apart, the one statement (a sort of the window) measured no faster
    // there, and its walk of a page is cheap (no partitions to plan).
    if (ctx.database.sql.countsWithPage && limit > 0 && p.start + limit <= COUNT_WINDOW) return countedWithPage(ctx, q, joined, p.start, limit);
    const c = await counted(ctx, q, joined);
    return { ...c, ids: await pageIds(q, p) };
  });
}

/** GET /api/v1/messages (terms empty) and GET /api/v1/search. A Sandbox inbox's total, unread and tags are
 * its kept figures (counts.ts); a search's own count is bounded (COUNT_WINDOW). */
export async function listMessages(ctx: AppContext, server: MailpitServer, p: Paging, terms: Term[] | null = null) {
  const searching = (terms !== null && terms.length > 0) || p.before !== undefined;
  let figures: InboxFigures | undefined;
  const out = await limitedRead(ctx, p.signal, async (ctx) => {
    const planned = terms?.length ? await planTerms(ctx, server, terms) : undefined;
    const kept = server.sandbox ? inboxFigures(ctx, server) : null;
    const all = kept ? kept.then((f) => ({ n: f.total, unread: f.unread })) : joiningStatePerPartition(ctx, false, () => counted(ctx, scope(ctx, server), false));
    const search = searching ? searched(ctx, server, terms ?? [], (probed) => scope(ctx, server, terms ?? [], p.before, planned, probed), p) : null;
    const [inbox, matched, tags, messages] = await Promise.all([
      all,
      search ?? all,
      kept ? kept.then((f) => [...f.tags.keys()]) : allTags(ctx, server),
      (search ? search.then((r) => r.ids) : pageIds(scope(ctx, server), p)).then((ids) => pageOf(ctx, server, ids)),
    ]);
    if (kept) figures = await kept;
    return {
      total: inbox.n,
      unread: inbox.unread,
      count: messages.length,
      messages_count: matched.n,
      messages_unread: matched.unread,
      start: p.start,
      tags,
      messages,
    };
  });
  if (figures) await compactIfDue(ctx, server, figures);
  return out;
}

/** The newest message's id (Mailpit's `latest`), of a search when terms are given. */
export async function latestId(ctx: AppContext, server: MailpitServer, terms: Term[] = [], signal?: AbortSignal): Promise<string | null> {
  const r = await limitedRead(ctx, signal, async (ctx) => {
    const q = scope(ctx, server, terms, undefined, terms.length ? await planTerms(ctx, server, terms) : undefined);
    return joiningStatePerPartition(ctx, needsState(terms), () => newestFirst(q.select('messages.id')).limit(1).executeTakeFirst());
  });
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
      return deleteMessageRows(trx, mine, server.id);
    });
  }
  return deleted;
}

/** Deletes every message of the server, or those matching a search, a chunk per transaction. */
export async function deleteMatching(ctx: AppContext, server: MailpitServer, terms: Term[]): Promise<number> {
  let deleted = 0;
  for (;;) {
    const ids = (await limitedRead(ctx, undefined, (ctx) => scope(ctx, server, terms).select('messages.id').limit(CHUNK).execute())).map((r) => (r as { id: string }).id);
    if (ids.length === 0) return deleted;
    const n = await deleteMessages(ctx, server, ids);
    deleted += n;
    if (n === 0) return deleted;
  }
}
