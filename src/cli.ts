#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Role } from './config.js';
import { createContext } from './context.js';
import { migrateToLatest } from './infra/db/migrate.js';
import { serve } from './serve.js';
import { issueToken } from './domain/tokens/issue.js';
import { USER_HELP, userCommand } from './cli-user.js';

const HELP = `mailroom: a self-hosted transactional email service

Usage:
  mailroom serve [--role all|api|worker]   run the service (default role: all)
  mailroom migrate                         bring the database schema up to date
  mailroom token server [--server ID]      issue a new server token (default: the first server)
  mailroom token account                   issue a new account token
${USER_HELP}
  mailroom --help                          this text

Configuration comes from MAILROOM_* environment variables; see README.md.
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' }, server: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, sub] = positionals;
  if (values.help || !command || command === 'help') {
    process.stdout.write(HELP);
    return command || values.help ? 0 : 1;
  }
  const config = loadConfig();
  if (command === 'serve') {
    const role = (values.role ?? 'all') as Role;
    if (!['all', 'api', 'worker'].includes(role)) throw new UsageError(`--role must be all, api or worker`);
    await serve(config, role);
    return -1; // keep running
  }
  if (command === 'migrate') {
    const ctx = createContext(config);
    try {
      const ran = await migrateToLatest(ctx.database);
      process.stdout.write(ran.length ? `applied: ${ran.join(', ')}\n` : 'schema is up to date\n');
    } finally {
      await ctx.close();
    }
    return 0;
  }
  if (command === 'token') {
    if (sub !== 'server' && sub !== 'account') throw new UsageError('token takes "server" or "account"');
    const ctx = createContext(config);
    try {
      await migrateToLatest(ctx.database);
      const serverId = values.server === undefined ? undefined : Number(values.server);
      if (serverId !== undefined && !Number.isInteger(serverId)) throw new UsageError('--server takes a server ID');
      const token = await issueToken(ctx, sub, serverId);
      process.stdout.write(`${token}\n`);
    } finally {
      await ctx.close();
    }
    return 0;
  }
  if (command === 'user') return userCommand(config, positionals.slice(1), values.role);
  throw new UsageError(`unknown command "${command}"`);
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    if (err instanceof ConfigError) process.stderr.write(`mailroom: configuration error: ${err.message}\n`);
    else if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      process.stderr.write(`mailroom: ${err.message}\n\n${HELP}`);
    else process.stderr.write(`mailroom: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 2;
  },
);
