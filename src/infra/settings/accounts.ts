// The bootstrap tokens of an empty database and the master key.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const ACCOUNT_SETTINGS = {
  MAILROOM_ACCOUNT_TOKEN: {
    area: 'Accounts and keys',
    default: 'unset',
    description: 'bootstrap account token used when the database is empty (scripted setups, CI); at least 16 characters',
    kind: { type: 'token' },
    field: 'accountToken',
  },
  MAILROOM_SERVER_TOKEN: {
    area: 'Accounts and keys',
    default: 'unset',
    description: 'bootstrap server token used when the database is empty (scripted setups, CI); at least 16 characters',
    kind: { type: 'token' },
    field: 'serverToken',
  },
  MAILROOM_SECRET_KEY: {
    area: 'Accounts and keys',
    default: 'generated',
    description: 'master key (32+ characters) for signed links and for encrypting DKIM private keys and webhook passwords at rest. Unset: a random key is created in `secret.key` beside the SQLite file (or `./data`). Set it when more than one machine runs mailroom.',
    kind: { type: 'secret', minLength: 32 },
    field: 'secretKey',
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
