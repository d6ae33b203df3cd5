#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, givenDatabaseUrl, loadConfig, type Role } from './config.js';
import { createContext } from './context.js';
import { migrateToLatest } from './infra/db/migrate.js';
import { serve } from './serve.js';
import { issueToken } from './domain/tokens/issue.js';
import { userCommand } from './cli-user.js';
import { COMMAND_HELP, HELP } from './cli-help.js';
import { describeStartError } from './start-errors.js';
import { OPERATOR_COMMANDS, OperatorUsage } from './cli-operator.js';


async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      server: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      confirmed: { type: 'boolean' },
      json: { type: 'boolean' },
      sandbox: { type: 'boolean' },
    },
  });
  const [command, sub] = positionals;
  // `mailroom COMMAND --help` and `mailroom help COMMAND`: that command's text.
  const asked = command === 'help' ? sub : values.help ? command : undefined;
  if (asked !== undefined && asked in COMMAND_HELP) {
    process.stdout.write(COMMAND_HELP[asked]);
    return 0;
  }
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
  if (command in OPERATOR_COMMANDS) {
    const ctx = createContext(config);
    try {
      await migrateToLatest(ctx.database);
      process.stdout.write(await OPERATOR_COMMANDS[command](ctx, positionals.slice(1), values));
    } catch (err) {
      if (err instanceof OperatorUsage) throw new UsageError(err.message);
      throw err;
    } finally {
      await ctx.close();
    }
    return 0;
  }
  throw new UsageError(`unknown command "${command}"`);
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    const known = describeStartError(err, givenDatabaseUrl());
    if (err instanceof ConfigError) process.stderr.write(`mailroom: configuration error: ${err.message}\n`);
    else if (known) process.stderr.write(`mailroom: ${known}\n`);
    else if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      process.stderr.write(`mailroom: ${err.message}\n\n${HELP}`);
    else process.stderr.write(`mailroom: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    // Exit now: a half-started service (a pool, a listener) must not keep the process alive.
    process.exit(2);
  },
);
