// An account's console users as its admins manage them from the console (the command line's are in
// users.ts): listed, added with a password given or generated, given another role, removed. The account
// always keeps an admin: without one nobody could change anything from the console again, and the remedy
// would be the command line on the database's machine. An admin does not remove or demote themselves here
// either: another admin does it, so nobody locks themselves out by a slip.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { normalizeEmail } from '../../infra/mime/normalize.js';
import { ApiError, ErrorCode } from '../errors.js';
import { generatePassword, hashPassword, passwordProblem } from './passwords.js';
import { ROLES, type Role } from './users.js';

/** A refusal that concerns one input: Email, Role or Password; null for the request as a whole. */
export class UserRefusal extends ApiError {
  constructor(
    readonly field: 'Email' | 'Role' | 'Password' | null,
    message: string,
  ) {
    super(ErrorCode.InvalidRequestFields, message);
  }
}

export interface AccountUser {
  id: number;
  email: string;
  role: Role;
  created_at: number;
}

export async function listAccountUsers(db: Kysely<Database>, accountId: number): Promise<AccountUser[]> {
  return db.selectFrom('console_users').select(['id', 'email', 'role', 'created_at']).where('account_id', '=', accountId).orderBy('email').execute();
}

function roleOf(given: string): Role {
  const role = ROLES.find((r) => r === given);
  if (!role) throw new UserRefusal('Role', 'Role must be admin or viewer.');
  return role;
}

/** Adds a user; `password` empty: one is generated, and returned (the only time it is seen). */
export async function addAccountUser(ctx: AppContext, accountId: number, input: { email: string; role: string; password: string }): Promise<{ user: AccountUser; password: string; generated: boolean }> {
  const email = normalizeEmail(input.email.trim().slice(0, 320));
  if (!email) throw new UserRefusal('Email', `"${input.email.slice(0, 100)}" is not an email address.`);
  const role = roleOf(input.role);
  const generated = input.password === '';
  const password = generated ? generatePassword() : input.password;
  const problem = passwordProblem(password);
  if (problem) throw new UserRefusal('Password', `The password is refused: ${problem}.`);
  const password_hash = await hashPassword(password);
  const now = ctx.clock.now();
  // Addresses are unique across accounts (sign-in names only the address).
  const taken = () => new UserRefusal('Email', `${email} is already a console user.`);
  if (await ctx.db.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirst()) throw taken();
  try {
    const row = await ctx.db.insertInto('console_users').values({ account_id: accountId, email, role, password_hash, created_at: now }).returning('id').executeTakeFirstOrThrow();
    return { user: { id: row.id, email, role, created_at: now }, password, generated };
  } catch (err) {
    if (await ctx.db.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirst()) throw taken();
    throw err;
  }
}

/**
 * The account's admins, their rows locked until the transaction ends (db/row-locks.ts: PostgreSQL; SQLite's
 * one writer serializes already), so that two admins demoting each other at once cannot both pass the
 * "another admin is left" check. Read again once locked: a change committed meanwhile is seen.
 */
async function lockedAdmins(trx: Kysely<Database>, ctx: AppContext, accountId: number): Promise<number[]> {
  const admins = () => trx.selectFrom('console_users').select('id').where('account_id', '=', accountId).where('role', '=', 'admin').orderBy('id').execute();
  await ctx.database.sql.lockRowsForUpdate(trx, 'console_users', (await admins()).map((r) => r.id));
  return (await admins()).map((r) => r.id);
}

async function userOf(trx: Kysely<Database>, accountId: number, userId: number): Promise<AccountUser> {
  const u = await trx.selectFrom('console_users').select(['id', 'email', 'role', 'created_at']).where('id', '=', userId).where('account_id', '=', accountId).executeTakeFirst();
  if (!u) throw new ApiError(ErrorCode.NotFound, 'No such console user.');
  return u;
}

/** A new role; the user's sessions carry on (each request reads the role afresh). */
export async function setUserRole(ctx: AppContext, accountId: number, actorId: number, userId: number, roleText: string): Promise<AccountUser> {
  const role = roleOf(roleText);
  return ctx.db.transaction().execute(async (trx) => {
    const admins = await lockedAdmins(trx, ctx, accountId);
    const u = await userOf(trx, accountId, userId);
    if (u.role === role) return u;
    if (u.id === actorId) throw new UserRefusal(null, 'You cannot change your own role: another admin can.');
    if (u.role === 'admin' && admins.length <= 1) throw new UserRefusal('Role', `${u.email} is the account's only admin: make another user admin first.`);
    await trx.updateTable('console_users').set({ role }).where('id', '=', u.id).execute();
    return { ...u, role };
  });
}

/** Removes the user and every session of theirs in one transaction: their next request is signed out. */
export async function removeAccountUser(ctx: AppContext, accountId: number, actorId: number, userId: number): Promise<AccountUser> {
  return ctx.db.transaction().execute(async (trx) => {
    const admins = await lockedAdmins(trx, ctx, accountId);
    const u = await userOf(trx, accountId, userId);
    if (u.id === actorId) throw new UserRefusal(null, 'You cannot remove yourself: another admin can.');
    if (u.role === 'admin' && admins.length <= 1) throw new UserRefusal(null, `${u.email} is the account's only admin and cannot be removed.`);
    await trx.deleteFrom('console_sessions').where('user_id', '=', u.id).execute();
    await trx.deleteFrom('console_users').where('id', '=', u.id).execute();
    return u;
  });
}
