// Failed SMTP AUTH per client address, limited as the console limits failed sign-ins per client
// (console-users/client-limit.ts): counted in the database, so the limit holds across every process that
// runs a submission listener, over the same 15-minute window. Rows live in console_login_failures under a
// key no console sign-in can take: the console stores a normalized address (with an `@`) or the lowercased
// text typed, and this key has an upper-case prefix and no `@`.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { FAILURE_WINDOW_MS } from '../console-users/sessions.js';

export const AUTH_FAILURE_WINDOW_MS = FAILURE_WINDOW_MS;

const keyOf = (client: string): string => `SMTP:${client.slice(0, 64)}`;

/** Failed AUTH from `client` (an address, or an IPv6 /64) within the window ending at `now`. */
export async function recentAuthFailures(db: Kysely<Database>, client: string, now: number): Promise<number> {
  const r = await db
    .selectFrom('console_login_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('email', '=', keyOf(client))
    .where('occurred_at', '>', now - AUTH_FAILURE_WINDOW_MS)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Records one failed AUTH; rows past the window (of any key, as a failed sign-in does) go at the same time. */
export async function recordAuthFailure(db: Kysely<Database>, client: string, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('console_login_failures').where('occurred_at', '<=', now - AUTH_FAILURE_WINDOW_MS).execute();
    await trx.insertInto('console_login_failures').values({ email: keyOf(client), occurred_at: now }).execute();
  });
}
