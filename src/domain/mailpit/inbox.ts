// The console's view of a Sandbox server as Mailpit's inbox: which listed messages are unread,
// opening a message marks it read, and "delete all" empties it; the same state and the same deletion as
// Mailpit's API (read-state.ts, listing.ts), so a test and a person looking at the console agree.
import type { AppContext } from '../app-context.js';
import type { MailpitServer } from './filters.js';
import { countInbox, deleteMatching } from './listing.js';
import { readFlags, setRead } from './read-state.js';

interface ServerLike {
  id: number;
  delivery_type: string;
}

/** The server as an inbox: Sandbox servers only (a Live server's Activity is a sending log). */
export function inboxOf(server: ServerLike): MailpitServer | null {
  return server.delivery_type === 'Sandbox' ? { id: server.id, accountId: 0, sandbox: true } : null;
}

/** The unread ones among these message ids of a Sandbox server (empty for a Live one). */
export async function unreadAmong(ctx: AppContext, server: ServerLike, ids: string[]): Promise<Set<string>> {
  if (!inboxOf(server)) return new Set();
  const flags = await readFlags(ctx, ids);
  return new Set(ids.filter((id) => !flags.get(id)?.read));
}

/** Opening a message on the console reads it, as opening it in Mailpit does. */
export async function markOpened(ctx: AppContext, server: ServerLike, id: string): Promise<void> {
  const inbox = inboxOf(server);
  if (inbox) await setRead(ctx, inbox, [id], true);
}

export async function inboxCounts(ctx: AppContext, server: ServerLike): Promise<{ total: number; unread: number } | null> {
  const inbox = inboxOf(server);
  if (!inbox) return null;
  // Bounded as Mailpit's lists are (listing.ts, COUNT_WINDOW): the console shows the same figures.
  const c = await countInbox(ctx, inbox);
  return { total: c.n, unread: c.unread };
}

/** Deletes every message of a Sandbox server; returns how many. */
export async function deleteAllOf(ctx: AppContext, server: ServerLike): Promise<number> {
  const inbox = inboxOf(server);
  return inbox ? deleteMatching(ctx, inbox, []) : 0;
}
