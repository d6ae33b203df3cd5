// The CLI's help: the overview (`mailroom --help`) and one text per command (`mailroom COMMAND --help`).
import { USER_HELP } from './cli-user.js';

const SERVE = `Usage: mailroom serve [--role all|api|worker]

Runs the service: migrates the database, creates an account and a server "Default" on an empty database
(printing their tokens once), then answers HTTP (and SMTP submission) and runs the queue.
  --role all      everything in one process (default)
  --role api      HTTP and SMTP submission only
  --role worker   the queue (delivery, webhooks), periodic tasks and the inbound SMTP listener
Settings come from MAILROOM_* environment variables (docs/settings.md), e.g. MAILROOM_PORT (8080),
MAILROOM_DATABASE_URL (./data/mailroom.db or postgres://...), MAILROOM_CAPTURE_DIR (deliver to local files).
`;

export const COMMAND_HELP: Record<string, string> = {
  serve: SERVE,
  migrate: `Usage: mailroom migrate\n\nBrings the database schema up to date (serve does it too) and prints what it applied.\n`,
  token: `Usage: mailroom token server [--server ID]
       mailroom token account

Issues a new API token and prints it once (only its hash is stored). "server" issues a server token
(X-Service-Server-Token) for the server ID given, by default the first server; "account" an account token
(X-Service-Account-Token).
`,
  user: `Usage:\n${USER_HELP}\n\nConsole users sign in to the web console; admins may change settings, viewers only read.\n`,
  status: `Usage: mailroom status [--json]\n\nQueue depths, the oldest job, workers, failing destinations and bulk requests.\n`,
  sender: `Usage: mailroom sender add EMAIL --name NAME [--confirmed]

Adds a sender signature (a From address the account may send from) to the first account. Without
--confirmed a confirmation link is mailed to EMAIL; with it the operator vouches for the address.
`,
  server: `Usage: mailroom server add NAME [--sandbox]

Creates a server in the first account, with its three default streams, and prints its ID and its first
server token once. --sandbox: a Sandbox server, a test inbox (mail is kept for the console and the Mailpit
API, never sent; any From address is taken, as Mailpit does: SandboxAcceptsAnyFrom).
`,
  domain: `Usage: mailroom domain add NAME\n\nAdds a sending domain to the first account and prints the DNS records to publish.\n`,
  postmaster: `Usage: mailroom postmaster [list | show ID]\n\nMail received for postmaster (RFC 5321 4.5.1): the list, or one message's source.\n`,
  dmarc: `Usage: mailroom dmarc [unattached]\n\nDMARC aggregate reports kept apart because no domain of an account may take them.\n`,
  backup: `Usage: mailroom backup FILE\n\nWrites a consistent copy of the SQLite database while the service runs (mode 0600).\n`,
};

export const HELP = `mailroom: a self-hosted transactional email service

Usage:
  mailroom serve [--role all|api|worker]   run the service (default role: all)
  mailroom migrate                         bring the database schema up to date
  mailroom token server [--server ID]      issue a new server token (default: the first server)
  mailroom token account                   issue a new account token
${USER_HELP}
  mailroom status [--json]                 queue depths, oldest job, workers, failing destinations
  mailroom server add NAME [--sandbox]     add a server; prints its first token once
  mailroom sender add EMAIL --name NAME [--confirmed]
                                           add a sender signature; --confirmed skips the mailed link
  mailroom domain add NAME                 add a sending domain and print its DNS records
  mailroom postmaster [list | show ID]     mail received for postmaster (RFC 5321 4.5.1)
  mailroom dmarc [unattached]              DMARC reports kept apart (no domain of an account may take them)
  mailroom backup FILE                     consistent copy of the SQLite database while it runs
  mailroom --help                          this text; mailroom COMMAND --help: one command's

Configuration comes from MAILROOM_* environment variables; see docs/settings.md.
From a clone, run it as \`node dist/cli.js\` (or \`npx mailroom\`) after \`npm run build\`, or put \`mailroom\`
itself on your PATH with \`npm link\`.
`;
