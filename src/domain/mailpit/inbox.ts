// The console's view of a Sandbox server as Mailpit's inbox: which listed messages are unread,
// opening a message marks it read, and "delete all" empties it; the same state and the same deletion as
// Mailpit's API (read-state.ts, listing.ts), so a test and a person looking at the console agree.
import type { AppContext } from '../app-context.js';
import type { MailpitServer } from './filters.js';
import { limitedRead } from '../read-limit.js';
import { compactIfDue, inboxFigures } from './counts.js';
import { deleteMatching } from './listing.js';
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
  // The kept figures Mailpit's lists show (counts.ts): the console and the API agree.
  const f = await limitedRead(ctx, undefined, (ctx) => inboxFigures(ctx, inbox));
  await compactIfDue(ctx, inbox, f);
  return { total: f.total, unread: f.unread };
}

/** Deletes every message of a Sandbox server; returns how many. */
export async function deleteAllOf(ctx: AppContext, server: ServerLike): Promise<number> {
  const inbox = inboxOf(server);
  return inbox ? deleteMatching(ctx, inbox, []) : 0;
}
