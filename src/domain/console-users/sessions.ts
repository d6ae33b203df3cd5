// Server-side console sessions. The cookie holds 32 random bytes; the database holds only their SHA-256, the
// user and the session's CSRF token. Every request looks its session up (no cache), so a sign-out, a
// `user remove` or a password change ends the session at once in every process sharing the database.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { DUMMY_HASH, verifyPassword } from './passwords.js';
import type { ConsoleUser, Role } from './users.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Failed sign-ins per address within the window before further attempts are refused unchecked. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

export interface Session {
  user: ConsoleUser;
  csrfToken: string;
  expiresAt: number;
}

const digest = (value: string): string => createHash('sha256').update(value).digest('hex');

export type SignInOutcome = { kind: 'ok'; cookieValue: string; session: Session } | { kind: 'wrong' } | { kind: 'throttled' };

export async function signIn(db: Kysely<Database>, emailInput: string, password: string, now: number): Promise<SignInOutcome> {
  const email = normalizeEmail(emailInput.trim()) ?? emailInput.trim().toLowerCase().slice(0, 320);
  const recent = await db
    .selectFrom('console_login_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('email', '=', email)
    .where('occurred_at', '>', now - FAILURE_WINDOW_MS)
    .executeTakeFirstOrThrow();
  if (Number(recent.n) >= MAX_FAILURES) return { kind: 'throttled' };
  const u = await db.selectFrom('console_users').selectAll().where('email', '=', email).executeTakeFirst();
  // A missing user costs a hash all the same, so timing does not tell which addresses exist.
  const ok = await verifyPassword(password, u?.password_hash ?? DUMMY_HASH);
  if (!u || !ok) {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('console_login_failures').where('occurred_at', '<=', now - FAILURE_WINDOW_MS).execute();
      await trx.insertInto('console_login_failures').values({ email, occurred_at: now }).execute();
    });
    return { kind: 'wrong' };
  }
  const cookieValue = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_TTL_MS;
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('console_login_failures').where('email', '=', email).execute();
    await trx.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
    await trx.insertInto('console_sessions').values({ id_hash: digest(cookieValue), user_id: u.id, csrf_token: csrfToken, created_at: now, expires_at: expiresAt }).execute();
  });
  return { kind: 'ok', cookieValue, session: { user: { id: u.id, accountId: u.account_id, email: u.email, role: u.role as Role }, csrfToken, expiresAt } };
}

export async function resolveSession(db: Kysely<Database>, cookieValue: string, now: number): Promise<Session | null> {
  if (cookieValue.length < 20 || cookieValue.length > 100) return null;
  const row = await db
    .selectFrom('console_sessions')
    .innerJoin('console_users', 'console_users.id', 'console_sessions.user_id')
    .select(['console_users.id', 'console_users.account_id', 'console_users.email', 'console_users.role', 'console_sessions.csrf_token', 'console_sessions.expires_at'])
    .where('console_sessions.id_hash', '=', digest(cookieValue))
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return null;
  return { user: { id: row.id, accountId: row.account_id, email: row.email, role: row.role as Role }, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

export async function signOut(db: Kysely<Database>, cookieValue: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', digest(cookieValue)).execute();
}
