// `mailroom user add|list|remove|password`: console users are managed from the command line, where whoever
// runs it already holds the database.
import type { Config } from './config.js';
import { createContext } from './context.js';
import { generatePassword } from './domain/console-users/passwords.js';
import { addUser, ConsoleUserError, listUsers, removeUser, setPassword } from './domain/console-users/users.js';
import { migrateToLatest } from './infra/db/migrate.js';
import { iso } from './infra/time.js';

export const USER_HELP = `  mailroom user add EMAIL --role admin|viewer   add a console user (password from standard input, or generated)
  mailroom user list                            list console users
  mailroom user remove EMAIL                    remove a console user and end their sessions
  mailroom user password EMAIL                  set a new password (standard input, or generated)`;

/** The first line of standard input when it is piped; null on a terminal or when empty (then one is generated). */
async function passwordFromStdin(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  return line === '' ? null : line;
}

export async function userCommand(config: Config, args: string[], role: string | undefined): Promise<number> {
  const [sub, email] = args;
  const ctx = createContext(config);
  const out = (s: string) => process.stdout.write(s);
  try {
    await migrateToLatest(ctx.database);
    if (sub === 'list') {
      for (const u of await listUsers(ctx.db)) out(`${u.email}\t${u.role}\t${iso(u.created_at)}\n`);
      return 0;
    }
    if (!email || !['add', 'remove', 'password'].includes(sub ?? '')) {
      process.stderr.write(`mailroom: user takes add|list|remove|password\n${USER_HELP}\n`);
      return 2;
    }
    if (sub === 'remove') {
      await removeUser(ctx.db, email);
      out(`removed ${email}; their sessions ended\n`);
      return 0;
    }
    const given = await passwordFromStdin();
    const password = given ?? generatePassword();
    if (sub === 'add') await addUser(ctx.db, { email, role: role ?? 'viewer', password }, ctx.clock.now());
    else await setPassword(ctx.db, email, password);
    out(given ? `${sub === 'add' ? 'added' : 'password set for'} ${email}\n` : `${sub === 'add' ? 'added' : 'password set for'} ${email}; password (shown once): ${password}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ConsoleUserError) {
      process.stderr.write(`mailroom: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await ctx.close();
  }
}
