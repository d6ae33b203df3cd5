// Console users: an admin sees and changes everything of the account, a viewer reads everything and changes
// nothing. Managed from the command line (`mailroom user ...`).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { hashPassword, passwordProblem } from './passwords.js';

export const ROLES = ['admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export class ConsoleUserError extends Error {}

export interface ConsoleUser {
  id: number;
  accountId: number;
  email: string;
  role: Role;
}

export function consoleEmail(input: string): string {
  const email = normalizeEmail(input.trim());
  if (!email) throw new ConsoleUserError(`"${input}" is not an email address`);
  return email;
}

export async function addUser(db: Kysely<Database>, input: { email: string; role: string; password: string }, now: number): Promise<ConsoleUser> {
  const email = consoleEmail(input.email);
  if (!(ROLES as readonly string[]).includes(input.role)) throw new ConsoleUserError('--role must be admin or viewer');
  const problem = passwordProblem(input.password);
  if (problem) throw new ConsoleUserError(problem);
  const account = await db.selectFrom('accounts').select('id').orderBy('id').limit(1).executeTakeFirst();
  if (!account) throw new ConsoleUserError('no account yet: start mailroom once first');
  const existing = await db.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirst();
  if (existing) throw new ConsoleUserError(`${email} is already a console user`);
  const password_hash = await hashPassword(input.password);
  const row = await db
    .insertInto('console_users')
    .values({ account_id: account.id, email, role: input.role as Role, password_hash, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, accountId: account.id, email, role: input.role as Role };
}

export async function listUsers(db: Kysely<Database>): Promise<Array<{ email: string; role: string; created_at: number }>> {
  return db.selectFrom('console_users').select(['email', 'role', 'created_at']).orderBy('email').execute();
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const r = await db.selectFrom('console_users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Removes the user and, in the same transaction, every session: the next request of any process is signed out. */
export async function removeUser(db: Kysely<Database>, emailInput: string): Promise<void> {
  const email = consoleEmail(emailInput);
  await db.transaction().execute(async (trx) => {
    const u = await trx.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirst();
    if (!u) throw new ConsoleUserError(`${email} is not a console user`);
    await trx.deleteFrom('console_sessions').where('user_id', '=', u.id).execute();
    await trx.deleteFrom('console_users').where('id', '=', u.id).execute();
  });
}

/** A new password also ends the user's sessions (a stolen session must not survive a password change). */
export async function setPassword(db: Kysely<Database>, emailInput: string, password: string): Promise<void> {
  const email = consoleEmail(emailInput);
  const problem = passwordProblem(password);
  if (problem) throw new ConsoleUserError(problem);
  const password_hash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    const u = await trx.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirst();
    if (!u) throw new ConsoleUserError(`${email} is not a console user`);
    await trx.updateTable('console_users').set({ password_hash }).where('id', '=', u.id).execute();
    await trx.deleteFrom('console_sessions').where('user_id', '=', u.id).execute();
  });
}
