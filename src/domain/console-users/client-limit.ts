// Failed sign-ins limited per client address as well as per account address (sessions.ts): one client
// trying many addresses (password spraying) is stopped too. Counted in the same table as the per-address
// failures, under a key no sign-in address can take (`ip:` + the client's address; an address typed as
// `ip:...` is refused before it is counted), so the limit holds across every process sharing the database.
// The key is the client's address as the HTTP server sees it (req.ip): the socket's peer, or behind the
// proxies of MAILROOM_TRUSTED_PROXIES the client their X-Forwarded-For names (app.ts, trustProxy).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { FAILURE_WINDOW_MS, signIn, type SignInOutcome } from './sessions.js';

/** Higher than the per-address limit: many people may sign in from behind one office address. */
export const MAX_CLIENT_FAILURES = 20;

const keyOf = (client: string): string => `ip:${client.slice(0, 64)}`;

async function failures(db: Kysely<Database>, key: string, now: number): Promise<number> {
  const r = await db
    .selectFrom('console_login_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('email', '=', key)
    .where('occurred_at', '>', now - FAILURE_WINDOW_MS)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * signIn behind the per-client limit. A success does not clear the client's failures: an attacker holding
 * one real account must not be able to reset the count by signing in to it.
 */
export async function signInFromClient(db: Kysely<Database>, client: string, email: string, password: string, now: number): Promise<SignInOutcome> {
  const key = keyOf(client);
  if ((await failures(db, key, now)) >= MAX_CLIENT_FAILURES) return { kind: 'throttled' };
  const reserved = email.trim().toLowerCase().startsWith('ip:');
  const out: SignInOutcome = reserved ? { kind: 'wrong' } : await signIn(db, email, password, now);
  if (out.kind === 'wrong') await db.insertInto('console_login_failures').values({ email: key, occurred_at: now }).execute();
  return out;
}
