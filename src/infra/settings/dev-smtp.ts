// The development SMTP port, which takes mail without AUTH into one Sandbox server.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import { isIP } from 'node:net';
import type { Setting } from './setting.js';

/** A host that is a loopback address (or `localhost`): nothing beyond this machine can connect. */
function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
}

export const DEV_SMTP_SETTINGS = {
  MAILROOM_DEV_SMTP_PORT: {
    area: 'Development SMTP',
    default: 'unset (off)',
    description: 'a development SMTP port taking mail **without AUTH** into one Sandbox server, as Mailpit\'s SMTP port does (role `api`; `0`: any free port). See "SMTP without credentials, for development"',
    kind: { type: 'port-or-off', fallback: null },
    field: 'devSmtp.port',
    gate: true,
  },
  MAILROOM_DEV_SMTP_SERVER: {
    area: 'Development SMTP',
    default: 'unset',
    description: 'the Sandbox server (its name or ID) that port puts mail into; required with the port. A Live, unknown or ambiguous server stops the start naming this variable',
    kind: { type: 'string', trim: true },
    field: 'devSmtp.server',
    required: 'MAILROOM_DEV_SMTP_PORT is set: name the Sandbox server (its name or ID) that takes the mail',
  },
  MAILROOM_DEV_SMTP_HOST: {
    area: 'Development SMTP',
    default: '127.0.0.1',
    description: 'address of that port; a non-loopback address stops the start unless `MAILROOM_DEV_SMTP_ALLOW_REMOTE=true`',
    kind: { type: 'string', fallback: '127.0.0.1' },
    field: 'devSmtp.host',
    // Anyone who can reach the port can put mail in the server without a token.
    check: (host, get) =>
      get('MAILROOM_DEV_SMTP_PORT') !== null && !isLoopbackHost(String(host)) && !get('MAILROOM_DEV_SMTP_ALLOW_REMOTE')
        ? `${JSON.stringify(host)} is not a loopback address: the listener takes mail without credentials; set MAILROOM_DEV_SMTP_ALLOW_REMOTE=true to listen there anyway`
        : null,
  },
  MAILROOM_DEV_SMTP_ALLOW_REMOTE: {
    area: 'Development SMTP',
    default: 'false',
    description: 'let `MAILROOM_DEV_SMTP_HOST` be a non-loopback address: anyone who reaches it can put mail in the server without a token',
    kind: { type: 'bool', fallback: false },
    field: 'devSmtp.allowRemote',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
