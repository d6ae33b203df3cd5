// Mailpit's tags over mailroom's messages. A message's tags are its Postmark Tag until tags are set through
// the API (PUT /api/v1/tags, rename, delete, or Tags in /api/v1/send); from then on they are the list kept in
// mailpit_state.tags (migration 0031), which replaces the Tag, so a test that sets [] sees none. Names are
// cleaned as Mailpit's CleanTag does and unique whatever their case.
import { sql, type SqlBool } from 'kysely';
import type { AppContext } from '../app-context.js';
import { distinctTags } from '../../infra/db/distinct-tags.js';
import { fromJson } from '../../infra/db/util.js';
import { inboxFigures } from './counts.js';
import { scope, type MailpitServer } from './filters.js';

const CHUNK = 500;
const MAX_TAG = 100;
const TAG_CHAR = /[a-zA-Z0-9\- _.@]/;

export class TagError extends Error {}

/** Mailpit's CleanTag: characters outside [a-zA-Z0-9- _.@] become spaces, runs of spaces one, trimmed, 100 at most. */
export function cleanTag(s: string): string {
  let out = '';
  let space = false;
  for (const ch of s) {
    if (!TAG_CHAR.test(ch) || ch === ' ') {
      space = out !== '';
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
    if (out.length >= MAX_TAG) break;
  }
  return out.slice(0, MAX_TAG).trim();
}

/** Cleaned, without empties and case-insensitive duplicates, first spelling kept. */
export function cleanTags(tags: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tags) {
    if (typeof t !== 'string') continue;
    const c = cleanTag(t);
    if (c === '' || seen.has(c.toLowerCase())) continue;
    seen.add(c.toLowerCase());
    out.push(c);
  }
  return out;
}

export function tagsOf(tag: string | null, state: string | null | undefined): string[] {
  if (state !== null && state !== undefined) return fromJson<string[]>(state, []);
  return tag ? [tag] : [];
}

async function writeTags(ctx: AppContext, server: MailpitServer, lists: Map<string, string[]>): Promise<void> {
  const rows = [...lists].map(([id, tags]) => ({ message_id: id, server_id: server.id, tags: JSON.stringify(tags) }));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await ctx.db
      .insertInto('mailpit_state')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.column('message_id').doUpdateSet({ tags: (eb) => eb.ref('excluded.tags') }))
      .execute();
  }
}

/** Replaces the tags of these messages of the server (ids of other servers are ignored). */
export async function setTags(ctx: AppContext, server: MailpitServer, ids: string[], tags: readonly unknown[]): Promise<void> {
  const list = cleanTags(tags);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const mine = await scope(ctx, server).select('messages.id').where('messages.id', 'in', ids.slice(i, i + CHUNK)).execute();
    await writeTags(ctx, server, new Map(mine.map((r) => [(r as { id: string }).id, list])));
  }
}

/** The server's messages carrying `tag` (any case), with their current lists. */
async function carrying(ctx: AppContext, server: MailpitServer, tag: string): Promise<Map<string, string[]>> {
  const rows = (await scope(ctx, server, [{ kind: 'field', field: 'tag', value: tag, exclude: false }])
    .select(['messages.id', 'messages.tag', 's.tags'])
    .execute()) as Array<{ id: string; tag: string | null; tags: string | null }>;
  return new Map(rows.map((r) => [r.id, tagsOf(r.tag, r.tags)]));
}

export async function renameTag(ctx: AppContext, server: MailpitServer, from: string, to: string): Promise<void> {
  const name = cleanTag(to);
  if (name === '') throw new TagError(`invalid tag name: ${to}`);
  if (from === name) return;
  const found = await carrying(ctx, server, from);
  if (found.size === 0) throw new TagError(`tag not found: ${from}`);
  if (name.toLowerCase() !== from.toLowerCase() && (await allTags(ctx, server)).some((t) => t.toLowerCase() === name.toLowerCase())) {
    throw new TagError(`tag already exists: ${name}`);
  }
  for (const [id, list] of found) found.set(id, cleanTags(list.map((t) => (t.toLowerCase() === from.toLowerCase() ? name : t))));
  await writeTags(ctx, server, found);
}

export async function deleteTag(ctx: AppContext, server: MailpitServer, tag: string): Promise<void> {
  const found = await carrying(ctx, server, tag);
  for (const [id, list] of found) found.set(id, list.filter((t) => t.toLowerCase() !== tag.toLowerCase()));
  await writeTags(ctx, server, found);
}

/** Tags set through the API on the server's messages (the partial index mailpit_state_tags). */
async function setLists(ctx: AppContext, server: MailpitServer): Promise<string[][]> {
  const rows = await ctx.db.selectFrom('mailpit_state').select('tags').where('server_id', '=', server.id).where(sql<SqlBool>`tags is not null`).execute();
  return rows.map((r) => fromJson<string[]>(r.tags, []));
}

/** The Postmark Tags of the messages whose tags were never set through the API, with their counts. */
async function plainTags(ctx: AppContext, server: MailpitServer, anySet: boolean, counted: boolean): Promise<Array<{ tag: string; n: number }>> {
  // Without any list set (the usual case) no join, and only the names: read from the tag indexes.
  if (!anySet && !counted) {
    const streams = await ctx.db.selectFrom('message_streams').select('id').where('server_id', '=', server.id).execute();
    return (await distinctTags(ctx.db, server.id, streams.map((x) => x.id))).filter((t) => t !== '').map((tag) => ({ tag, n: 0 }));
  }
  let q = scope(ctx, server).where('messages.tag', 'is not', null);
  if (anySet) q = q.leftJoin('mailpit_state as s', 's.message_id', 'messages.id').where(sql<SqlBool>`s.tags is null`);
  const rows = counted
    ? await q.select(['messages.tag', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('messages.tag').execute()
    : await q.select('messages.tag').distinct().execute();
  return (rows as Array<{ tag: string; n?: number }>).filter((r) => r.tag !== '').map((r) => ({ tag: r.tag, n: Number(r.n ?? 0) }));
}

function merge(plain: Array<{ tag: string; n: number }>, lists: string[][]): Map<string, number> {
  const byKey = new Map<string, { name: string; n: number }>();
  const add = (t: string, n: number) => {
    const k = t.toLowerCase();
    const e = byKey.get(k);
    if (e) e.n += n;
    else byKey.set(k, { name: t, n });
  };
  for (const r of plain) add(r.tag, r.n);
  for (const l of lists) for (const t of l) add(t, 1);
  const out = [...byKey.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return new Map(out.map((e) => [e.name, e.n]));
}

/** Every tag in use on the server with how many messages carry it, sorted by name (GET /api/v1/info): a
 * Sandbox inbox's kept figures (counts.ts), a Live server's counted. */
export async function tagCounts(ctx: AppContext, server: MailpitServer): Promise<Map<string, number>> {
  if (server.sandbox) return (await inboxFigures(ctx, server)).tags;
  const lists = await setLists(ctx, server);
  return merge(await plainTags(ctx, server, lists.length > 0, true), lists);
}

/** Every tag in use on the server, sorted by name. */
export async function allTags(ctx: AppContext, server: MailpitServer): Promise<string[]> {
  if (server.sandbox) return [...(await inboxFigures(ctx, server)).tags.keys()];
  const lists = await setLists(ctx, server);
  return [...merge(await plainTags(ctx, server, lists.length > 0, false), lists).keys()];
}
