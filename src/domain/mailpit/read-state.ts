// Mailpit's read flag (PUT /api/v1/messages, and opening a message: its summary marks it read, as Mailpit's
// does; the console's message page too). A row of mailpit_state (migration 0031) per message read or
// tagged; a message without one is unread. Unread counts are bounded with the list's (listing.ts).
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { scope, type MailpitServer } from './filters.js';
import type { Term } from './query.js';

const CHUNK = 500;

/** Marks these messages of the server read or unread; ids of other servers are ignored. */
export async function setRead(ctx: AppContext, server: MailpitServer, ids: string[], read: boolean): Promise<void> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    if (read) await insertRead(ctx, scope(ctx, server).where('messages.id', 'in', part));
    else await ctx.db.updateTable('mailpit_state').set({ read: 0 }).where('server_id', '=', server.id).where('message_id', 'in', part).where('read', '=', 1).execute();
  }
}

/** Every message of the server, or those matching a search, read or unread. */
export async function setReadMatching(ctx: AppContext, server: MailpitServer, terms: Term[], read: boolean): Promise<void> {
  if (read) return insertRead(ctx, scope(ctx, server, terms));
  if (terms.length === 0) {
    await ctx.db.updateTable('mailpit_state').set({ read: 0 }).where('server_id', '=', server.id).where('read', '=', 1).execute();
    return;
  }
  const ids = (await scope(ctx, server, terms).select('messages.id').execute()).map((r) => (r as { id: string }).id);
  await setRead(ctx, server, ids, false);
}

async function insertRead(ctx: AppContext, messages: ReturnType<typeof scope>): Promise<void> {
  await ctx.db
    .insertInto('mailpit_state')
    .columns(['message_id', 'server_id', 'read'])
    .expression(messages.select(['messages.id', 'messages.server_id', sql.lit(1).as('read')]) as any)
    .onConflict((oc) => oc.column('message_id').doUpdateSet({ read: 1 }))
    .execute();
}

/** The read flags of these messages (absent: unread). */
export async function readFlags(ctx: AppContext, ids: string[]): Promise<Map<string, { read: boolean; tags: string | null }>> {
  const out = new Map<string, { read: boolean; tags: string | null }>();
  if (ids.length === 0) return out;
  const rows = await ctx.db.selectFrom('mailpit_state').select(['message_id', 'read', 'tags']).where('message_id', 'in', ids).execute();
  for (const r of rows) out.set(r.message_id, { read: r.read === 1, tags: r.tags });
  return out;
}
